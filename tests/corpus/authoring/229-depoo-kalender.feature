# language: et
# Fail: features/mcp/depoo_kalender.feature
# Omanik: liiniplaneerimise tiim (Kadri Tamm), viimati muudetud 29.05.2024
#
# Sõnastik (argumentide nimed kirjutasin eesti keeles, et dispetšerid saaksid lugeda):
#   kalender = calendarId, algus = timeMin/start, lõpp = timeMax/end,
#   osalejad = attendees, kestus = durationMinutes, koht = location,
#   pealkiri = summary, teavita = sendUpdates
# Kõik kellaajad Tallinna suveaja järgi (+03:00).

@kalender @mcp @regressioon
Omadus: Kalendriassistent depoo vahetuste ja koosolekute jaoks
  Dispetšer küsib assistendilt depoo kalendri kohta ja assistent kasutab
  kalendriserveri tööriistu. Testid käivad vastu testkalendrit
  "depoo-ulemiste-test", mitte päris kalendrit.

  Taust:
    Eeldades et kasutaja on sisse loginud kui "mari.lepp@liinid.example"
    Ja kalendriserver töötab testrežiimis
    Ja testkalendris on 14 sündmust juunis 2024

  Stsenaarium: Nädala sündmuste nimekiri
    Kui kasutaja kirjutab "Näita Ülemiste depoo kalendri sündmusi 3. kuni 7. juunini"
    Siis assistent kutsub välja tööriista listEvents
    Ja argumendid on:
      | argument | väärtus                   |
      | kalender | depoo-ulemiste-test       |
      | algus    | 2024-06-03T00:00:00+03:00 |
      | lõpp     | 2024-06-07T23:59:59+03:00 |

  Stsenaarium: Ühise vaba aja leidmine
    Kui kasutaja kirjutab "Leia 45 minutit, kui Mari, Toomas ja Kadri kõik vabad on, ainult tööajal"
    Siis assistent kutsub välja tööriista findFreeSlots
    Ja osalejad on "mari.lepp@liinid.example", "toomas.kask@liinid.example", "kadri.tamm@liinid.example"
    Ja kestus on 45
    Ja ainult tööaeg on tõene

  Stsenaarium: Ohutusinfo tunni lisamine
    Kui kasutaja kirjutab "Pane kalendrisse ohutusinfo bussijuhtidele reedel 14. juunil kell 9-10, saal B"
    Siis assistent kasutab tööriista, mis loob kalendrisse uue sündmuse
    Ja pealkiri on "Ohutusinfo bussijuhtidele"
    Ja algus on "2024-06-14T09:00:00+03:00" ning lõpp "2024-06-14T10:00:00+03:00"
    Ja koht on "Ülemiste depoo, saal B"

  Stsenaarium: Kutsest keeldumine
    Kui kasutaja kirjutab "Lükka kutse evt-5521 tagasi, ütle et olen sel ajal liinil 17"
    Siis assistent kutsub välja tööriista respondToInvite
    Ja sündmuse id on "evt-5521" ja vastus on "declined"
    Ja kommentaar on "Olen sel ajal liinil 17"

  # Stsenaarium: Igapäevane korduv ülevaatus  -- VÄLJAS, kordusreeglite muutmine pole veel serveris
  #   Kui kasutaja kirjutab "Tee bussi ülevaatusest igapäevane sündmus kell 6:00"
  #   Siis assistent kutsub välja tööriista createEvent
  #   Ja recurrence on "daily"

  Stsenaarium: Üldine küsimus, tööriistu pole vaja
    Kui kasutaja kirjutab "Mis vahe on graafikul ja sõiduplaanil?"
    Siis assistent vastab ise
    Kuid ühtegi tööriista ei kutsuta

  Stsenaarium: Aja muutmine ilma kustutamata
    Kui kasutaja kirjutab "Nihuta evt-7730 algus 12. juunil kell 10:30 peale, ära seda kustuta"
    Siis assistent kutsub välja tööriista updateEvent
    Ja sündmuse id on "evt-7730" ja algus on "2024-06-12T10:30:00+03:00"
    Kuid tööriista deleteEvent ei kutsuta
    Ja tööriista createEvent ei kutsuta

  Raamstsenaarium: Lühikesed päringud
    Kui kasutaja kirjutab "<päring>"
    Siis assistent kutsub välja tööriista <tööriist>
    Ja argumentides on <argumendid>

    Juhtumid:
      | päring                                            | tööriist       | argumendid                         |
      | Milliseid kalendreid ma näen, ka jagatuid?        | listCalendars  | includeShared=true                 |
      | Otsi aadressiraamatust Toomas Kask                | searchContacts | query=Toomas Kask                  |
      | Kustuta sündmus evt-6102 ja teavita kõiki osalejaid | deleteEvent  | eventId=evt-6102, sendUpdates=true |
