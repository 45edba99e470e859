*** Settings ***
Documentation     Evaluacijski testovi za MCP demo poslužitelj (asistent za građane, Grad Novi Vinodol – Odjel za digitalne usluge).
...               Svaki test: korisnik nešto pita, a mi provjeravamo koji alat model pozove i s kojim argumentima.
...               Izvođač: Kvadrat IT d.o.o. / kontakt: ivana.peric@kvadrat-it.example.hr
Library           Collections
Library           ../lib/McpEval.py    server=demo    transport=stdio
Resource          ../resources/zajednicko.resource
Suite Setup       Pokreni Poslužitelj I Spoji Klijenta
Suite Teardown    Zaustavi Poslužitelj
Test Timeout      2 minutes
Force Tags        demo    gradski-asistent

*** Variables ***
${MODEL}          claude-eval
${TIMEOUT_MS}     30000
# napomena: ${TIMEOUT_MS} je timeout klijenta, NIJE argument ni jednog alata


*** Test Cases ***
TC01 Zbrajanje iznosa
    [Documentation]    Alat koji zbraja dva broja. Građanin zbraja dvije uplatnice.
    [Tags]    smoke    zbroj
    Korisnik Pita    Koliko je 1250 + 830? Imam dvije uplatnice za komunalnu naknadu.
    Očekuj Poziv Alata    get-sum    a=1250    b=830

TC02 Statistika potrošnje
    [Documentation]    Prosjek, minimum, maksimum za mjesečne račune za vodu.
    Korisnik Pita    Izračunaj prosjek, min i max za moje račune: 12, 15, 9, 22 i 17 eura
    Očekuj Poziv Alata    get_stats    {"numbers": [12, 15, 9, 22, 17]}

TC03 Ponavljanje poruke bez starog alata
    [Documentation]    Mora se koristiti novi echo. Stari (legacy) vraća sve VELIKIM SLOVIMA i ne smije se zvati.
    [Tags]    echo    regresija
    Korisnik Pita    Ponovi točno ovo: Zahtjev zaprimljen, hvala na strpljenju
    Očekuj Poziv Alata    echo    poruka=Zahtjev zaprimljen, hvala na strpljenju
    Zabrani Alat    legacy-echo

TC04 Namjerna greška
    [Documentation]    Alat koji uvijek vrati grešku (isError). Provjeravamo da model grešku lijepo prenese građaninu, a ne da izmišlja.
    Korisnik Pita    Pozovi alat koji uvijek pada, razlog neka bude "test greške"
    Očekuj Poziv Alata    fail    reason=test greške

TC05 Spori poziv s napretkom
    [Documentation]    Čekanje 3 sekunde u 3 koraka.
    [Tags]    spor
    Korisnik Pita    Pokreni sporu operaciju od 3 sekunde u tri koraka
    Očekuj Poziv Alata    slow    durationMs=3000    steps=3

TC06 Straničenje kataloga
    [Documentation]    Popis stavki po 2 na stranici
    Korisnik Pita    Izlistaj katalog, po dvije stavke na stranici
    Očekuj Poziv Alata    list-items    pageSize=2

TC07 Brisanje stavke
    [Documentation]    Brisanje (lažno) stavke iz kataloga prema ID-u
    Korisnik Pita    Obriši stavku stavka-17 iz kataloga
    Očekuj Poziv Alata    DeleteItem    id=stavka-17

TC08 Podaci o poslužitelju
    Korisnik Pita    Koliko dugo već radi poslužitelj i koji mu je PID?
    Očekuj Poziv Alata    server-info

TC09 Opće pitanje – bez alata
    [Documentation]    Model treba samo odgovoriti, bez ikakvih alata.
    [Tags]    negativni
    Korisnik Pita    Što je uopće MCP i zašto ga grad koristi?
    Očekuj Bez Alata

TC10 Rušenje poslužitelja
    [Documentation]    ODGOĐENO – klijent se sad zaglavi kad se proces sruši, čekamo popravak u McpEval.py (ticket DIG-231).
    [Tags]    robot:skip    crash
    Korisnik Pita    Sruši poslužitelj usred poziva
    Očekuj Poziv Alata    crash

#TC11 Veliki rezultat
#    Korisnik Pita    Vrati mi 5000 bajtova teksta
#    Očekuj Poziv Alata    large-result    size=5000
# -> izbačeno na sastanku 14.5., nema smisla za građane (Marko)

TC12 Veliki rezultat za izvoz
    [Documentation]    Izvoz popisa obavijesti - alat vraća zadani broj bajtova teksta (ovdje 20000).
    Korisnik Pita    Daj mi probni izvoz od 20000 bajtova da vidim kako izgleda
    Očekuj Poziv Alata    large-result    size=20000


*** Keywords ***
Korisnik Pita
    [Documentation]    Šalje upit modelu. Primjer: ``Korisnik Pita    Koliko je 2 + 2?``
    [Arguments]    ${upit}
    ${odgovor}=    McpEval.Posalji Upit    ${upit}    model=${MODEL}
    Set Test Variable    ${ODGOVOR}    ${odgovor}

Očekuj Poziv Alata
    [Documentation]    Provjerava da je model pozvao alat. Primjer: ``Očekuj Poziv Alata    get-sum    a=2    b=2``
    ...                Argumenti se mogu dati kao ključ=vrijednost ili kao JSON.
    [Arguments]    ${alat}    @{argumenti}
    McpEval.Provjeri Poziv    ${ODGOVOR}    ${alat}    @{argumenti}

Očekuj Bez Alata
    McpEval.Provjeri Da Nema Poziva    ${ODGOVOR}

Zabrani Alat
    [Arguments]    ${alat}
    McpEval.Provjeri Da Nije Pozvan    ${ODGOVOR}    ${alat}
