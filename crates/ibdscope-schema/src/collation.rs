//! Collation ids and the character sets they belong to, as MySQL 5.6 and
//! MariaDB 10.11 list them: what the `.frm` reader, the `CREATE TABLE`
//! parser and table definitions all need to know of a collation (its
//! charset's name and bytes per character).

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
];

impl Charset {
    /// The charset of a collation id, `None` for ids neither MySQL 5.6 nor
    /// MariaDB 10.11 has.
    pub fn of_collation(id: u16) -> Option<Charset> {
        CHARSETS.iter().find_map(|&(name, mbmaxlen, ranges)| {
            ranges
                .iter()
                .any(|&(a, b)| (a..=b).contains(&id))
                .then_some(Charset {
                    name,
                    // `mbminlen` (strings/ctype-ucs2.c): 2 for UCS-2 and the
                    // UTF-16s, 4 for UTF-32, 1 for every other.
                    mbminlen: match name {
                        "ucs2" | "utf16" | "utf16le" => 2,
                        "utf32" => 4,
                        _ => 1,
                    },
                    mbmaxlen,
                })
        })
    }
}

const COLLATIONS_MARIADB: &str = include_str!("../tests/frm/mariadb1011/collations.tsv");
const COLLATIONS_MYSQL56: &str = include_str!("../tests/frm/mysql56/collations.tsv");

/// Each charset's default collation (`SHOW CHARACTER SET`,
/// `DEFAULT_COLLATE_NAME`, of MySQL 5.6 and MariaDB 10.11; they agree).
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
        if let Some(id) = find(COLLATIONS_MARIADB, n).or_else(|| find(COLLATIONS_MYSQL56, n)) {
            return Some(id);
        }
    }
    None
}

/// A collation's name by id (MariaDB 10.11's list, then MySQL 5.6's).
pub fn collation_name(id: u16) -> Option<String> {
    let want = id.to_string();
    let find = |list: &str| {
        list.lines().find_map(|l| {
            let mut f = l.split('\t');
            (f.next()? == want).then(|| f.next().map(str::to_string))?
        })
    };
    find(COLLATIONS_MARIADB).or_else(|| find(COLLATIONS_MYSQL56))
}

/// A charset's default collation id (`utf8` is `utf8mb3`).
pub fn charset_default_collation(charset: &str) -> Option<u16> {
    let lower = charset.to_ascii_lowercase();
    let cs = if lower == "utf8" { "utf8mb3" } else { &lower };
    let (_, coll) = DEFAULT_COLLATIONS.iter().find(|(c, _)| *c == cs)?;
    collation_id(coll)
}
