//! Numbers spelled out in words (`fifteen`, `tres mil`, `cinco millones`, `zwanzig`,
//! `mille deux cents`), as people dictate an argument or write it in a prompt.

/// Words for the numbers below a hundred (folded), in the lexicon's Latin-script
/// languages.
const SMALL: &[(&str, u32)] = &[
    ("zero", 0),
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("thirteen", 13),
    ("fourteen", 14),
    ("fifteen", 15),
    ("sixteen", 16),
    ("seventeen", 17),
    ("eighteen", 18),
    ("nineteen", 19),
    ("twenty", 20),
    ("thirty", 30),
    ("forty", 40),
    ("fifty", 50),
    ("sixty", 60),
    ("seventy", 70),
    ("eighty", 80),
    ("ninety", 90),
    ("null", 0),
    ("eins", 1),
    ("ein", 1),
    ("eine", 1),
    ("zwei", 2),
    ("drei", 3),
    ("vier", 4),
    ("funf", 5),
    ("sechs", 6),
    ("sieben", 7),
    ("acht", 8),
    ("neun", 9),
    ("zehn", 10),
    ("elf", 11),
    ("zwolf", 12),
    ("dreizehn", 13),
    ("vierzehn", 14),
    ("funfzehn", 15),
    ("sechzehn", 16),
    ("siebzehn", 17),
    ("achtzehn", 18),
    ("neunzehn", 19),
    ("zwanzig", 20),
    ("dreissig", 30),
    ("dreißig", 30),
    ("vierzig", 40),
    ("funfzig", 50),
    ("sechzig", 60),
    ("siebzig", 70),
    ("achtzig", 80),
    ("neunzig", 90),
    ("un", 1),
    ("une", 1),
    ("deux", 2),
    ("trois", 3),
    ("quatre", 4),
    ("cinq", 5),
    ("sept", 7),
    ("huit", 8),
    ("neuf", 9),
    ("dix", 10),
    ("onze", 11),
    ("douze", 12),
    ("treize", 13),
    ("quatorze", 14),
    ("quinze", 15),
    ("seize", 16),
    ("vingt", 20),
    ("trente", 30),
    ("quarante", 40),
    ("cinquante", 50),
    ("soixante", 60),
    ("cero", 0),
    ("uno", 1),
    ("una", 1),
    ("dos", 2),
    ("tres", 3),
    ("cuatro", 4),
    ("cinco", 5),
    ("seis", 6),
    ("siete", 7),
    ("ocho", 8),
    ("nueve", 9),
    ("diez", 10),
    ("once", 11),
    ("doce", 12),
    ("trece", 13),
    ("catorce", 14),
    ("quince", 15),
    ("dieciseis", 16),
    ("diecisiete", 17),
    ("dieciocho", 18),
    ("diecinueve", 19),
    ("veinte", 20),
    ("treinta", 30),
    ("cuarenta", 40),
    ("cincuenta", 50),
    ("sesenta", 60),
    ("setenta", 70),
    ("ochenta", 80),
    ("noventa", 90),
    ("um", 1),
    ("uma", 1),
    ("dois", 2),
    ("duas", 2),
    ("quatro", 4),
    ("sete", 7),
    ("oito", 8),
    ("nove", 9),
    ("dez", 10),
    ("doze", 12),
    ("treze", 13),
    ("quatorze", 14),
    ("catorze", 14),
    ("quinze", 15),
    ("dezesseis", 16),
    ("dezessete", 17),
    ("dezoito", 18),
    ("dezenove", 19),
    ("vinte", 20),
    ("trinta", 30),
    ("quarenta", 40),
    ("cinquenta", 50),
    ("due", 2),
    ("tre", 3),
    ("quattro", 4),
    ("sei", 6),
    ("sette", 7),
    ("otto", 8),
    ("dieci", 10),
    ("undici", 11),
    ("dodici", 12),
    ("tredici", 13),
    ("quindici", 15),
    ("venti", 20),
    ("trenta", 30),
    ("quaranta", 40),
    ("cinquanta", 50),
    ("nul", 0),
    ("een", 1),
    ("twee", 2),
    ("drie", 3),
    ("vijf", 5),
    ("zes", 6),
    ("zeven", 7),
    ("negen", 9),
    ("tien", 10),
    ("twaalf", 12),
    ("vijftien", 15),
    ("twintig", 20),
    ("dertig", 30),
    ("veertig", 40),
    ("vijftig", 50),
];

/// Hundreds written as one word.
const HUNDREDS: &[(&str, u32)] = &[
    ("cien", 100),
    ("ciento", 100),
    ("doscientos", 200),
    ("trescientos", 300),
    ("cuatrocientos", 400),
    ("quinientos", 500),
    ("seiscientos", 600),
    ("setecientos", 700),
    ("ochocientos", 800),
    ("novecientos", 900),
    ("cem", 100),
    ("cento", 100),
    ("duzentos", 200),
    ("trezentos", 300),
    ("quinhentos", 500),
    ("duecento", 200),
    ("trecento", 300),
    ("cinquecento", 500),
];

/// Multipliers: a hundred, a thousand, a million.
const SCALES: &[(&str, u64)] = &[
    ("hundred", 100),
    ("hundert", 100),
    ("cent", 100),
    ("cents", 100),
    ("honderd", 100),
    ("thousand", 1_000),
    ("tausend", 1_000),
    ("mille", 1_000),
    ("mil", 1_000),
    ("mila", 1_000),
    ("duizend", 1_000),
    ("million", 1_000_000),
    ("millions", 1_000_000),
    ("millionen", 1_000_000),
    ("millon", 1_000_000),
    ("millones", 1_000_000),
    ("milhao", 1_000_000),
    ("milhoes", 1_000_000),
    ("milione", 1_000_000),
    ("milioni", 1_000_000),
    ("miljoen", 1_000_000),
];

/// Words that join the parts of a number (`three hundred and five`, `treinta y dos`).
const JOINS: &[&str] = &["and", "und", "y", "e", "et", "en"];

/// The number a run of number words at the start of `t` spells, when it spells one.
pub fn spelled(t: &str) -> Option<f64> {
    let f = super::fold(t);
    let (mut total, mut current, mut seen) = (0u64, 0u64, false);
    for w in f
        .split(|c: char| c.is_whitespace() || c == '-')
        .filter(|w| !w.is_empty())
    {
        let w = w.trim_end_matches(['.', ',', ';', '!', '?']);
        if let Some(&(_, v)) = SMALL.iter().chain(HUNDREDS).find(|(k, _)| *k == w) {
            current += u64::from(v);
        } else if let Some(&(_, s)) = SCALES.iter().find(|(k, _)| *k == w) {
            let n = current.max(1) * s;
            if s == 100 {
                current = n;
            } else {
                total += n;
                current = 0;
            }
        } else if seen && JOINS.contains(&w) {
            continue;
        } else {
            break;
        }
        seen = true;
    }
    seen.then(|| (total + current) as f64)
}

#[cfg(test)]
mod tests {
    use super::spelled;

    #[test]
    fn numbers_spelled_in_words() {
        assert_eq!(spelled("quince"), Some(15.0));
        assert_eq!(spelled("tres mil"), Some(3000.0));
        assert_eq!(spelled("cinco millones"), Some(5_000_000.0));
        assert_eq!(spelled("seven hundred fifty"), Some(750.0));
        assert_eq!(spelled("twelve hundred"), Some(1200.0));
        assert_eq!(spelled("zwanzig Einträge"), Some(20.0));
        assert_eq!(spelled("treinta y dos"), Some(32.0));
        assert_eq!(spelled("mille deux cents"), Some(1200.0));
        assert_eq!(spelled("and five"), None);
        assert_eq!(spelled("pages"), None);
    }
}
