//! Collation ids and the character sets they belong to, as MySQL 5.6,
//! MySQL 8.0–9.x and MariaDB 10.11–11.x know them: what the `.frm` reader,
//! the `CREATE TABLE` parser and table definitions all need to know of a
//! collation (its charset's name and bytes per character).
//!
//! | ids | server | source |
//! |---|---|---|
//! | 1–247, 576–738, 1025–1270 | MySQL 5.6, MariaDB 10.11 | `tests/frm/*/collations.tsv` (the servers' `INFORMATION_SCHEMA`) |
//! | 2048–3327 (`*_uca1400_*`) | MariaDB 10.10+ | `tests/frm/mariadb1011/collations.tsv` (`COLLATION_CHARACTER_SET_APPLICABILITY` of MariaDB 10.11.19); id = 2048 + charset × 256 + tailoring × 8 + nopad × 4 + accent × 2 + case (MariaDB `strings/ctype-uca1400.c` `my_uca1400_make_builtin_collation_id`) |
//! | 76, 248–250, 255–323 | MySQL 8.0–9.x | [`MYSQL8`]: mysql-server 8.0 `strings/ctype-uca.cc`, `strings/ctype-utf8.cc`, `strings/ctype-gb18030.cc` (`CHARSET_INFO` number, name, `mbmaxlen`); MariaDB 11.4+ accepts the same ids and names as aliases (`strings/ctype-uca0900.c` `mysql_0900_mapping`) |

/// A character set, as far as the .frm needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Charset {
    /// Name (MariaDB's: `utf8mb3` for MySQL 5.6's `utf8`).
    pub name: &'static str,
    /// Fewest bytes per character.
    pub mbminlen: u8,
    /// Most bytes per character.
    pub mbmaxlen: u8,
}

/// Collation ids per charset with its MAXLEN, as
/// `INFORMATION_SCHEMA.COLLATIONS` and `CHARACTER_SETS` of MySQL 5.6.24 and
/// MariaDB 10.11 list them (the two agree on every id both have;
/// `crates/ibdscope-schema/tests/frm/*/collations.tsv`).
type CharsetIds = (&'static str, u8, &'static [(u16, u16)]);

const CHARSETS: &[CharsetIds] = &[
    ("big5", 2, &[(1, 1), (84, 84), (1025, 1025), (1108, 1108)]),
    (
        "latin2",
        1,
        &[
            (2, 2),
            (9, 9),
            (21, 21),
            (27, 27),
            (77, 77),
            (1033, 1033),
            (1101, 1101),
        ],
    ),
    ("dec8", 1, &[(3, 3), (69, 69), (1027, 1027), (1093, 1093)]),
    ("cp850", 1, &[(4, 4), (80, 80), (1028, 1028), (1104, 1104)]),
    (
        "latin1",
        1,
        &[
            (5, 5),
            (8, 8),
            (15, 15),
            (31, 31),
            (47, 49),
            (94, 94),
            (1032, 1032),
            (1071, 1071),
        ],
    ),
    ("hp8", 1, &[(6, 6), (72, 72), (1030, 1030), (1096, 1096)]),
    ("koi8r", 1, &[(7, 7), (74, 74), (1031, 1031), (1098, 1098)]),
    ("swe7", 1, &[(10, 10), (82, 82), (1034, 1034), (1106, 1106)]),
    (
        "ascii",
        1,
        &[(11, 11), (65, 65), (1035, 1035), (1089, 1089)],
    ),
    ("ujis", 3, &[(12, 12), (91, 91), (1036, 1036), (1115, 1115)]),
    ("sjis", 2, &[(13, 13), (88, 88), (1037, 1037), (1112, 1112)]),
    ("cp1251", 1, &[(14, 14), (23, 23), (50, 52), (1074, 1075)]),
    (
        "hebrew",
        1,
        &[(16, 16), (71, 71), (1040, 1040), (1095, 1095)],
    ),
    (
        "tis620",
        1,
        &[(18, 18), (89, 89), (1042, 1042), (1113, 1113)],
    ),
    (
        "euckr",
        2,
        &[(19, 19), (85, 85), (1043, 1043), (1109, 1109)],
    ),
    (
        "latin7",
        1,
        &[(20, 20), (41, 42), (79, 79), (1065, 1065), (1103, 1103)],
    ),
    (
        "koi8u",
        1,
        &[(22, 22), (75, 75), (1046, 1046), (1099, 1099)],
    ),
    (
        "gb2312",
        2,
        &[(24, 24), (86, 86), (1048, 1048), (1110, 1110)],
    ),
    (
        "greek",
        1,
        &[(25, 25), (70, 70), (1049, 1049), (1094, 1094)],
    ),
    (
        "cp1250",
        1,
        &[
            (26, 26),
            (34, 34),
            (44, 44),
            (66, 66),
            (99, 99),
            (1050, 1050),
            (1090, 1090),
        ],
    ),
    ("gbk", 2, &[(28, 28), (87, 87), (1052, 1052), (1111, 1111)]),
    ("cp1257", 1, &[(29, 29), (58, 59), (1082, 1083)]),
    (
        "latin5",
        1,
        &[(30, 30), (78, 78), (1054, 1054), (1102, 1102)],
    ),
    (
        "armscii8",
        1,
        &[(32, 32), (64, 64), (1056, 1056), (1088, 1088)],
    ),
    (
        "utf8mb3",
        3,
        &[
            (33, 33),
            (83, 83),
            (192, 215),
            (223, 223),
            (576, 578),
            (1057, 1057),
            (1107, 1107),
            (1216, 1216),
            (1238, 1238),
            // MySQL 8.0 utf8mb3_tolower_ci.
            (76, 76),
        ],
    ),
    (
        "ucs2",
        2,
        &[
            (35, 35),
            (90, 90),
            (128, 151),
            (159, 159),
            (640, 642),
            (1059, 1059),
            (1114, 1114),
            (1152, 1152),
            (1174, 1174),
        ],
    ),
    (
        "cp866",
        1,
        &[(36, 36), (68, 68), (1060, 1060), (1092, 1092)],
    ),
    (
        "keybcs2",
        1,
        &[(37, 37), (73, 73), (1061, 1061), (1097, 1097)],
    ),
    (
        "macce",
        1,
        &[(38, 38), (43, 43), (1062, 1062), (1067, 1067)],
    ),
    (
        "macroman",
        1,
        &[(39, 39), (53, 53), (1063, 1063), (1077, 1077)],
    ),
    (
        "cp852",
        1,
        &[(40, 40), (81, 81), (1064, 1064), (1105, 1105)],
    ),
    (
        "utf8mb4",
        4,
        &[
            (45, 46),
            (224, 247),
            (608, 610),
            (1069, 1070),
            (1248, 1248),
            (1270, 1270),
            // MySQL 8.0's UCA 9.0.0 collations (some ids in it unused:
            // [`MYSQL8`] names the ones that exist).
            (255, 323),
        ],
    ),
    (
        "utf16",
        4,
        &[
            (54, 55),
            (101, 124),
            (672, 674),
            (1078, 1079),
            (1125, 1125),
            (1147, 1147),
        ],
    ),
    (
        "utf16le",
        4,
        &[(56, 56), (62, 62), (1080, 1080), (1086, 1086)],
    ),
    (
        "cp1256",
        1,
        &[(57, 57), (67, 67), (1081, 1081), (1091, 1091)],
    ),
    (
        "utf32",
        4,
        &[
            (60, 61),
            (160, 183),
            (736, 738),
            (1084, 1085),
            (1184, 1184),
            (1206, 1206),
        ],
    ),
    ("binary", 1, &[(63, 63)]),
    ("geostd8", 1, &[(92, 93), (1116, 1117)]),
    ("cp932", 2, &[(95, 96), (1119, 1120)]),
    ("eucjpms", 3, &[(97, 98), (1121, 1122)]),
    // MySQL 5.7+ (strings/ctype-gb18030.cc, ctype-uca.cc: mbmaxlen 4).
    ("gb18030", 4, &[(248, 250)]),
];

/// MariaDB's UCA 14.0.0 collations (10.10+): the charset of each 256-id
/// block from 2048 (`my_cs_encoding_t`: utf8mb3, utf8mb4, ucs2, utf16,
/// utf32), and the tailorings that exist (0–20, 23 vietnamese, 24
/// croatian; the real server lists 23 tailorings × 8 in each block).
const UCA1400: [(&str, u8); 5] = [
    ("utf8mb3", 3),
    ("utf8mb4", 4),
    ("ucs2", 2),
    ("utf16", 4),
    ("utf32", 4),
];

/// The collations of MySQL 8.0–9.x (8.4 and 9.x add none) that neither
/// MySQL 5.6 nor MariaDB 10.11 lists, as mysql-server 8.0 defines them
/// (`CHARSET_INFO` number and name): `strings/ctype-utf8.cc` (76),
/// `strings/ctype-gb18030.cc` (248, 249), `strings/ctype-uca.cc` (250,
/// 255–323: `utf8mb4_0900_ai_ci` 255, the `_ai_ci` tailorings from 256, the
/// `_as_cs` ones from 278 in the same order; `fa` and `si` (272, 276, 295,
/// 299) and 301–302 are not compiled; 310–323 came with 8.0.30). All of
/// the utf8mb4 ones have `mbmaxlen` 4, gb18030 4. The 89 utf8mb4
/// collations the MySQL 8.0 manual counts are these 63 and MySQL 5.6's 26.
pub const MYSQL8: &[(u16, &str)] = &[
    (76, "utf8mb3_tolower_ci"),
    (248, "gb18030_chinese_ci"),
    (249, "gb18030_bin"),
    (250, "gb18030_unicode_520_ci"),
    (255, "utf8mb4_0900_ai_ci"),
    (256, "utf8mb4_de_pb_0900_ai_ci"),
    (257, "utf8mb4_is_0900_ai_ci"),
    (258, "utf8mb4_lv_0900_ai_ci"),
    (259, "utf8mb4_ro_0900_ai_ci"),
    (260, "utf8mb4_sl_0900_ai_ci"),
    (261, "utf8mb4_pl_0900_ai_ci"),
    (262, "utf8mb4_et_0900_ai_ci"),
    (263, "utf8mb4_es_0900_ai_ci"),
    (264, "utf8mb4_sv_0900_ai_ci"),
    (265, "utf8mb4_tr_0900_ai_ci"),
    (266, "utf8mb4_cs_0900_ai_ci"),
    (267, "utf8mb4_da_0900_ai_ci"),
    (268, "utf8mb4_lt_0900_ai_ci"),
    (269, "utf8mb4_sk_0900_ai_ci"),
    (270, "utf8mb4_es_trad_0900_ai_ci"),
    (271, "utf8mb4_la_0900_ai_ci"),
    (273, "utf8mb4_eo_0900_ai_ci"),
    (274, "utf8mb4_hu_0900_ai_ci"),
    (275, "utf8mb4_hr_0900_ai_ci"),
    (277, "utf8mb4_vi_0900_ai_ci"),
    (278, "utf8mb4_0900_as_cs"),
    (279, "utf8mb4_de_pb_0900_as_cs"),
    (280, "utf8mb4_is_0900_as_cs"),
    (281, "utf8mb4_lv_0900_as_cs"),
    (282, "utf8mb4_ro_0900_as_cs"),
    (283, "utf8mb4_sl_0900_as_cs"),
    (284, "utf8mb4_pl_0900_as_cs"),
    (285, "utf8mb4_et_0900_as_cs"),
    (286, "utf8mb4_es_0900_as_cs"),
    (287, "utf8mb4_sv_0900_as_cs"),
    (288, "utf8mb4_tr_0900_as_cs"),
    (289, "utf8mb4_cs_0900_as_cs"),
    (290, "utf8mb4_da_0900_as_cs"),
    (291, "utf8mb4_lt_0900_as_cs"),
    (292, "utf8mb4_sk_0900_as_cs"),
    (293, "utf8mb4_es_trad_0900_as_cs"),
    (294, "utf8mb4_la_0900_as_cs"),
    (296, "utf8mb4_eo_0900_as_cs"),
    (297, "utf8mb4_hu_0900_as_cs"),
    (298, "utf8mb4_hr_0900_as_cs"),
    (300, "utf8mb4_vi_0900_as_cs"),
    (303, "utf8mb4_ja_0900_as_cs"),
    (304, "utf8mb4_ja_0900_as_cs_ks"),
    (305, "utf8mb4_0900_as_ci"),
    (306, "utf8mb4_ru_0900_ai_ci"),
    (307, "utf8mb4_ru_0900_as_cs"),
    (308, "utf8mb4_zh_0900_as_cs"),
    (309, "utf8mb4_0900_bin"),
    (310, "utf8mb4_nb_0900_ai_ci"),
    (311, "utf8mb4_nb_0900_as_cs"),
    (312, "utf8mb4_nn_0900_ai_ci"),
    (313, "utf8mb4_nn_0900_as_cs"),
    (314, "utf8mb4_sr_latn_0900_ai_ci"),
    (315, "utf8mb4_sr_latn_0900_as_cs"),
    (316, "utf8mb4_bs_0900_ai_ci"),
    (317, "utf8mb4_bs_0900_as_cs"),
    (318, "utf8mb4_bg_0900_ai_ci"),
    (319, "utf8mb4_bg_0900_as_cs"),
    (320, "utf8mb4_gl_0900_ai_ci"),
    (321, "utf8mb4_gl_0900_as_cs"),
    (322, "utf8mb4_mn_cyrl_0900_ai_ci"),
    (323, "utf8mb4_mn_cyrl_0900_as_cs"),
];

impl Charset {
    /// The charset of a collation id, `None` for ids none of MySQL 5.6,
    /// 8.0–9.x and MariaDB 10.11–11.x has.
    pub fn of_collation(id: u16) -> Option<Charset> {
        let make = |name: &'static str, mbmaxlen: u8| Charset {
            name,
            // `mbminlen` (strings/ctype-ucs2.c): 2 for UCS-2 and the
            // UTF-16s, 4 for UTF-32, 1 for every other.
            mbminlen: match name {
                "ucs2" | "utf16" | "utf16le" => 2,
                "utf32" => 4,
                _ => 1,
            },
            mbmaxlen,
        };
        if let Some(off) = id.checked_sub(2048) {
            let (name, max) = *UCA1400.get(usize::from(off / 256))?;
            let tailoring = off % 256 / 8;
            return (tailoring <= 20 || tailoring == 23 || tailoring == 24)
                .then(|| make(name, max));
        }
        if (255..=323).contains(&id) && !MYSQL8.iter().any(|&(n, _)| n == id) {
            return None;
        }
        CHARSETS.iter().find_map(|&(name, mbmaxlen, ranges)| {
            ranges
                .iter()
                .any(|&(a, b)| (a..=b).contains(&id))
                .then(|| make(name, mbmaxlen))
        })
    }
}

const COLLATIONS_MARIADB: &str = include_str!("../tests/frm/mariadb1011/collations.tsv");
const COLLATIONS_MYSQL56: &str = include_str!("../tests/frm/mysql56/collations.tsv");

/// Each charset's default collation (`SHOW CHARACTER SET`,
/// `DEFAULT_COLLATE_NAME`, of MySQL 5.6 and MariaDB 10.11; they agree).
/// MySQL 8.0's utf8mb4 default is `utf8mb4_0900_ai_ci` (255) instead: a
/// definition read from a MySQL 8.0 file names it (`COLLATE=`), so it
/// reads back the same whichever default a reader assumes.
const DEFAULT_COLLATIONS: &[(&str, &str)] = &[
    ("big5", "big5_chinese_ci"),
    ("dec8", "dec8_swedish_ci"),
    ("cp850", "cp850_general_ci"),
    ("hp8", "hp8_english_ci"),
    ("koi8r", "koi8r_general_ci"),
    ("latin1", "latin1_swedish_ci"),
    ("latin2", "latin2_general_ci"),
    ("swe7", "swe7_swedish_ci"),
    ("ascii", "ascii_general_ci"),
    ("ujis", "ujis_japanese_ci"),
    ("sjis", "sjis_japanese_ci"),
    ("hebrew", "hebrew_general_ci"),
    ("tis620", "tis620_thai_ci"),
    ("euckr", "euckr_korean_ci"),
    ("koi8u", "koi8u_general_ci"),
    ("gb2312", "gb2312_chinese_ci"),
    ("greek", "greek_general_ci"),
    ("cp1250", "cp1250_general_ci"),
    ("gbk", "gbk_chinese_ci"),
    ("latin5", "latin5_turkish_ci"),
    ("armscii8", "armscii8_general_ci"),
    ("utf8mb3", "utf8mb3_general_ci"),
    ("ucs2", "ucs2_general_ci"),
    ("cp866", "cp866_general_ci"),
    ("keybcs2", "keybcs2_general_ci"),
    ("macce", "macce_general_ci"),
    ("macroman", "macroman_general_ci"),
    ("cp852", "cp852_general_ci"),
    ("latin7", "latin7_general_ci"),
    ("utf8mb4", "utf8mb4_general_ci"),
    ("cp1251", "cp1251_general_ci"),
    ("utf16", "utf16_general_ci"),
    ("utf16le", "utf16le_general_ci"),
    ("cp1256", "cp1256_general_ci"),
    ("cp1257", "cp1257_general_ci"),
    ("utf32", "utf32_general_ci"),
    ("binary", "binary"),
    ("geostd8", "geostd8_general_ci"),
    ("cp932", "cp932_japanese_ci"),
    ("eucjpms", "eucjpms_japanese_ci"),
    // MySQL 5.7+ (strings/ctype-gb18030.cc: the primary collation).
    ("gb18030", "gb18030_chinese_ci"),
];

/// A collation's id by name (`utf8_…` is `utf8mb3_…`).
pub fn collation_id(name: &str) -> Option<u16> {
    let lower = name.to_ascii_lowercase();
    let alias = lower
        .strip_prefix("utf8_")
        .map(|rest| format!("utf8mb3_{rest}"));
    let find = |list: &str, n: &str| {
        list.lines().find_map(|l| {
            let mut f = l.split('\t');
            let id = f.next()?;
            (f.next()? == n).then(|| id.parse::<u16>().ok())?
        })
    };
    for n in std::iter::once(lower.as_str()).chain(alias.as_deref()) {
        if let Some(id) = find(COLLATIONS_MARIADB, n)
            .or_else(|| find(COLLATIONS_MYSQL56, n))
            .or_else(|| MYSQL8.iter().find(|&&(_, m)| m == n).map(|&(id, _)| id))
        {
            return Some(id);
        }
    }
    None
}

/// A collation's name by id (MariaDB 10.11's list, then MySQL 5.6's, then
/// MySQL 8.0's).
pub fn collation_name(id: u16) -> Option<String> {
    let want = id.to_string();
    let find = |list: &str| {
        list.lines().find_map(|l| {
            let mut f = l.split('\t');
            (f.next()? == want).then(|| f.next().map(str::to_string))?
        })
    };
    find(COLLATIONS_MARIADB)
        .or_else(|| find(COLLATIONS_MYSQL56))
        .or_else(|| {
            MYSQL8
                .iter()
                .find(|&&(n, _)| n == id)
                .map(|&(_, name)| name.to_string())
        })
}

/// A charset's default collation id (`utf8` is `utf8mb3`).
pub fn charset_default_collation(charset: &str) -> Option<u16> {
    let lower = charset.to_ascii_lowercase();
    let cs = if lower == "utf8" { "utf8mb3" } else { &lower };
    let (_, coll) = DEFAULT_COLLATIONS.iter().find(|(c, _)| *c == cs)?;
    collation_id(coll)
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;

    /// Every collation the servers list (MySQL 5.6, MariaDB 10.11 with its
    /// UCA 14.0.0 ones) and every MySQL 8.0–9.x one goes from name to id
    /// and back, with its charset and bytes per character.
    #[test]
    fn every_collation_name_and_id() {
        for list in [COLLATIONS_MARIADB, COLLATIONS_MYSQL56] {
            for l in list.lines() {
                let f: Vec<&str> = l.split('\t').collect();
                let id: u16 = f[0].parse().unwrap();
                // MySQL 5.6's *_croatian_ci (ids 122, 149, ...) are
                // MariaDB's *_croatian_mysql561_ci; the name is MariaDB's.
                let renamed = list == COLLATIONS_MYSQL56 && f[1].ends_with("_croatian_ci");
                if !renamed {
                    assert_eq!(collation_id(f[1]), Some(id), "{l}");
                }
                if list == COLLATIONS_MARIADB {
                    // MySQL 5.6's utf8_* are MariaDB's utf8mb3_*.
                    assert_eq!(collation_name(id).as_deref(), Some(f[1]), "{l}");
                }
                let cs = Charset::of_collation(id).unwrap();
                assert_eq!(cs.mbmaxlen.to_string(), f[3], "{l}");
            }
        }
        // MariaDB 10.11.19's own list: 23 UCA 14.0.0 tailorings × 8 in each
        // of the five Unicode charsets.
        let uca1400 = COLLATIONS_MARIADB
            .lines()
            .filter(|l| l.contains("_uca1400"))
            .count();
        assert_eq!(uca1400, 920);
        assert_eq!(collation_id("utf8mb4_uca1400_ai_ci"), Some(2304));
        // mysql-server 8.0 strings/ctype-uca.cc: the numbers of the
        // CHARSET_INFO structures, mbmaxlen 4.
        for (name, id) in [
            ("utf8mb4_0900_ai_ci", 255),
            ("utf8mb4_de_pb_0900_ai_ci", 256),
            ("utf8mb4_tr_0900_ai_ci", 265),
            ("utf8mb4_0900_as_cs", 278),
            ("utf8mb4_et_0900_as_cs", 285),
            ("utf8mb4_sk_0900_as_cs", 292),
            ("utf8mb4_0900_bin", 309),
            ("utf8mb4_mn_cyrl_0900_as_cs", 323),
            ("gb18030_unicode_520_ci", 250),
        ] {
            assert_eq!(collation_id(name), Some(id), "{name}");
            assert_eq!(Charset::of_collation(id).map(|c| c.mbmaxlen), Some(4));
        }
        for &(id, name) in MYSQL8 {
            assert_eq!(collation_id(name), Some(id), "{name}");
            assert_eq!(collation_name(id).as_deref(), Some(name));
            let cs = Charset::of_collation(id).unwrap();
            assert!(name.starts_with(cs.name), "{name}: {}", cs.name);
        }
        // Ids no server has: MySQL's uncompiled fa/si 0900 collations and
        // 301, MariaDB's unused UCA 14.0.0 tailoring 21.
        for id in [272, 276, 295, 299, 301, 302, 324, 2048 + 21 * 8, 3328] {
            assert_eq!(Charset::of_collation(id), None, "{id}");
        }
    }
}
