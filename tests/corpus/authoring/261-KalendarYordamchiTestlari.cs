using System.Collections.Generic;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using NUnit.Framework;
using Ngo.Eval.Mcp;

namespace Ngo.Eval.Calendar.Tests
{
    /// <summary>
    /// Kalendar MCP serveri bilan ishlaydigan AI yordamchini baholash testlari.
    /// Toshkent ofisi, sog'liqni saqlash dasturi (targ'ibot guruhi).
    /// </summary>
    /// <remarks>
    /// Kelishuvlar:
    /// <list type="bullet">
    /// <item><description><c>prompt</c> — foydalanuvchi yozadigan matn, o'zbek tilida, qanday yozilsa shunday.</description></item>
    /// <item><description><c>kutilganVosita</c> — yordamchi chaqirishi kerak bo'lgan vosita. <c>null</c> bo'lsa — hech qanday vosita chaqirilmasligi kerak.</description></item>
    /// <item><description><c>argumentlarJson</c> — faqat biz tekshiradigan argumentlar; qolganlari e'tiborga olinmaydi.</description></item>
    /// <item><description><c>taqiqlangan</c> — chaqirilishi mumkin bo'lmagan vositalar, vergul bilan ajratilgan.</description></item>
    /// </list>
    /// Vaqtlar Toshkent vaqti (+05:00) bilan yoziladi. Vosita nomlari katalogdagidan biroz farq qilsa
    /// (masalan <c>search_contacts</c>), <see cref="VositaNomi.Normalla"/> ularni moslashtiradi.
    /// </remarks>
    [TestFixture]
    [Category("calendar")]
    [Category("eval")]
    public class KalendarYordamchiTestlari
    {
        private EvalClient _mijoz = null!;

        [OneTimeSetUp]
        public async Task Sozlash()
        {
            // Staging server va test hisob (eval.tashkent@ngo-example.org). Bu test emas, faqat ulanish.
            // Hisobda "Tibbiy targ'ibot" umumiy kalendari bo'lishi shart — Bekzod sozlagan.
            _mijoz = await EvalClient.ConnectAsync(TestContext.Parameters["McpUrl"], server: "calendar");
        }

        [OneTimeTearDown]
        public Task Yopish() => _mijoz.DisposeAsync().AsTask();

        [TestCase("Qaysi kalendarlarni ko'ra olaman? Faqat o'zimnikini ko'rsat, ulashilganlarini emas.",
            "listCalendars", "{\"includeShared\": false}")]
        [TestCase("15-aprel kuni soat 9:00 dan 10:30 gacha Samarqand ofisida \"Fermerlar bilan uchrashuv\" belgilab qo'y, yopiq bo'lsin.",
            "createEvent", "{\"summary\": \"Fermerlar bilan uchrashuv\", \"start\": \"2025-04-15T09:00:00+05:00\", \"end\": \"2025-04-15T10:30:00+05:00\", \"location\": \"Samarqand ofisi\", \"visibility\": \"private\"}")]
        [TestCase("Tibbiy targ'ibot seminarini (ev-3391) bekor qil, qatnashchilarga xabar borsin.",
            "deleteEvent", "{\"eventId\": \"ev-3391\", \"sendUpdates\": true}")]
        [TestCase("Kontaktlardan Dilnozani topib ber, ko'pi bilan 5 ta natija.",
            "search_contacts", "{\"query\": \"Dilnoza\", \"limit\": 5}")]
        [TestCase("inv-220 taklifiga \"balki\" deb javob ber, izohga \"Jizzaxdan qaytsam kelaman\" deb yoz.",
            "respondToInvite", "{\"eventId\": \"inv-220\", \"response\": \"tentative\", \"comment\": \"Jizzaxdan qaytsam kelaman\"}")]
        [TestCase("Google Calendar bilan Outlook kalendarining farqi nima?", null, null,
            Description = "Umumiy savol — yordamchi o'zi javob beradi, hech qanday vosita chaqirilmasin")]
        [TestCase("\"Byudjetni ko'rib chiqish\" uchrashuvini (ev-1207) 3-xonaga ko'chir.",
            "updateEvent", "{\"eventId\": \"ev-1207\", \"location\": \"3-xona\"}", "deleteEvent,createEvent")]
        [TestCase("Har oyning birinchi dushanbasiga hisobot yig'ilishini qo'yib qo'y.",
            "createEvent", "{\"summary\": \"Hisobot yig'ilishi\", \"recurrence\": \"monthly\"}",
            Ignore = "Olib tashlandi: 'birinchi dushanba' qoidasini server bilmaydi, faqat monthly bor. 20.03.2025, Javlon")]
        public async Task BittaSavol(string prompt, string? kutilganVosita, string? argumentlarJson, string? taqiqlangan = null)
        {
            var natija = await _mijoz.AskAsync(prompt);

            if (kutilganVosita is null)
            {
                Assert.That(natija.Chaqiruvlar, Is.Empty, "Vosita chaqirilmasligi kerak edi");
                return;
            }

            var nom = VositaNomi.Normalla(kutilganVosita);
            var chaqiruv = natija.Chaqiruvlar.FirstOrDefault(c => c.Nomi == nom);
            Assert.That(chaqiruv, Is.Not.Null, $"{nom} chaqirilmadi");
            ArgumentlarMos(chaqiruv!.Argumentlar, argumentlarJson);

            foreach (var t in (taqiqlangan ?? "").Split(',', System.StringSplitOptions.RemoveEmptyEntries))
                Assert.That(natija.Chaqiruvlar.Select(c => c.Nomi), Has.No.Member(t.Trim()));
        }

        /// <summary>
        /// Bir nechta odamning umumiy bo'sh vaqtini topib beradigan vositani tekshiradi.
        /// Bu vositaning nomi server versiyalari orasida ikki marta o'zgardi, shuning uchun
        /// uni katalogdan tavsifi bo'yicha olamiz.
        /// </summary>
        [Test]
        public async Task UmumiyBoshVaqt()
        {
            var vosita = _mijoz.Katalog.TavsifBoyicha("free time slots");
            var natija = await _mijoz.AskAsync(
                "Keyingi haftada Aziz, Malika va men uchun bir soatlik umumiy bo'sh vaqt top. Ish vaqtidan tashqari bo'lsa ham mayli.");

            var c = natija.Chaqiruvlar.Single(x => x.Nomi == vosita.Nomi);
            Assert.That(c.Argumentlar.GetProperty("durationMinutes").GetInt32(), Is.EqualTo(60));
            Assert.That(c.Argumentlar.GetProperty("workingHoursOnly").GetBoolean(), Is.False);
            Assert.That(c.Argumentlar.GetProperty("attendees").EnumerateArray().Select(e => e.GetString()),
                Is.SupersetOf(new[] { "aziz.karimov@ngo-example.org", "malika.yusupova@ngo-example.org" }));
        }

        /// <summary>Ko'p bosqichli suhbatlar: har bir element — foydalanuvchi xabarlari ketma-ketligi.</summary>
        private static IEnumerable<TestCaseData> KopBosqichliSuhbatlar()
        {
            yield return new TestCaseData(
                new[] { "Payshanba kuni qanday uchrashuvlarim bor? Faqat UNICEF bilan bog'liqlarini ko'rsat.",
                        "Birinchisini soat 15:00 ga sur, hammaga xabar ketsin." },
                new[] { "listEvents", "updateEvent" },
                new[] { "{\"query\": \"UNICEF\"}", "{\"sendUpdates\": true}" })
                .SetName("IkkiBosqich_UNICEF_uchrashuvini_surish");

            yield return new TestCaseData(
                new[] { "Nodira Rashidova kim? Uning pochtasini top.",
                        "Unga ertaga soat 14:00–14:30 ga \"Emlash hisobotini ko'rib chiqish\" uchrashuvini yubor." },
                new[] { "searchContacts", "createEvent" },
                new[] { "{\"query\": \"Nodira Rashidova\"}", "{\"summary\": \"Emlash hisobotini ko'rib chiqish\"}" })
                .SetName("IkkiBosqich_kontakt_keyin_uchrashuv");

            // TODO(Javlon): uch bosqichli misol — keyingi sprintda
        }

        [TestCaseSource(nameof(KopBosqichliSuhbatlar))]
        public async Task KopBosqichli(string[] xabarlar, string[] vositalar, string[] argumentlar)
        {
            var suhbat = _mijoz.YangiSuhbat();
            for (var i = 0; i < xabarlar.Length; i++)
            {
                var natija = await suhbat.SendAsync(xabarlar[i]);
                var c = natija.Chaqiruvlar.FirstOrDefault(x => x.Nomi == vositalar[i]);
                Assert.That(c, Is.Not.Null, $"{i + 1}-bosqich: {vositalar[i]} chaqirilmadi");
                ArgumentlarMos(c!.Argumentlar, argumentlar[i]);
            }
        }

        private static void ArgumentlarMos(JsonElement haqiqiy, string? kutilganJson)
        {
            if (string.IsNullOrEmpty(kutilganJson)) return;
            using var kutilgan = JsonDocument.Parse(kutilganJson);
            foreach (var p in kutilgan.RootElement.EnumerateObject())
                Assert.That(haqiqiy.GetProperty(p.Name).ToString(), Is.EqualTo(p.Value.ToString()), p.Name);
        }
    }
}
