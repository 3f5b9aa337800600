//! The printer's layouts on hand-made hits.

use super::*;
use crate::grep::Context;
use std::path::PathBuf;

/// A file of `lines` (stored once, each its own span) whose hits are `(line, byte start in
/// the line, length)`, 1-based lines; `context` lines around each hit when asked.
fn file(path: &[u8], lines: &[&[u8]], found: &[(u64, usize, usize)], context: usize) -> FileHits {
    let mut bytes = Vec::new();
    let spans: Vec<Span> = lines
        .iter()
        .map(|l| crate::grep::store(&mut bytes, l))
        .collect();
    let hits = found
        .iter()
        .map(|&(line, start, len)| {
            let text = spans[line as usize - 1];
            let index = line as usize - 1;
            let context = (context > 0).then(|| {
                Box::new(Context {
                    before: spans[index.saturating_sub(context)..index].to_vec(),
                    after: spans[index + 1..(index + 1 + context).min(spans.len())].to_vec(),
                })
            });
            let column = 1 + lines[index][..start]
                .iter()
                .filter(|&&b| (b as i8) >= -0x40)
                .count() as u64;
            Hit {
                line,
                column,
                end_line: line,
                byte_offset: 1000 + start as u64,
                content: Span {
                    start: text.start + start,
                    len,
                },
                text,
                context,
                unique: false,
                ranking: None,
            }
        })
        .collect::<Vec<_>>();
    let path = PathBuf::from(std::ffi::OsStr::from_bytes(path));
    crate::grep::test_support::file_hits(path, hits, bytes)
}

fn options(layout: Layout) -> PrintOptions {
    PrintOptions {
        layout,
        line_number: true,
        column: false,
        context: false,
        null: false,
    }
}

fn printed(printer: &mut Printer, files: &[(&FileHits, Option<&[u8]>)]) -> String {
    let mut out = Vec::new();
    for (f, name) in files {
        printer.file(
            f,
            *name,
            Some(Ids {
                prefix: "sr_",
                first: 35,
            }),
            &mut out,
        );
    }
    printer.finish(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

const LINES: &[&[u8]] = &[b"a_lock b_lock", b"none", b"c_lock\r", b"\xc3\xa9 d_lock"];
const FOUND: &[(u64, usize, usize)] = &[(1, 0, 6), (1, 7, 6), (3, 0, 7), (4, 3, 6)];

fn check(got: String, expected: &str) {
    assert_eq!(got, expected, "\nexpected:\n{expected}\ngot:\n{got}");
}

#[test]
fn lines_print_each_matching_line_once_with_the_first_column() {
    let f = file(b"x.txt", LINES, FOUND, 0);
    let mut o = options(Layout::Lines);
    o.column = true;
    check(
        printed(&mut Printer::new(o), &[(&f, Some(b"x.txt"))]),
        "x.txt:1:1:a_lock b_lock\nx.txt:3:1:c_lock\r\nx.txt:4:3:\u{e9} d_lock\n",
    );
    // `--column -N`: the column without the line, as rg prints it.
    o.line_number = false;
    check(
        printed(&mut Printer::new(o), &[(&f, Some(b"x.txt"))]),
        "x.txt:1:a_lock b_lock\nx.txt:1:c_lock\r\nx.txt:3:\u{e9} d_lock\n",
    );
    o.column = false;
    check(
        printed(&mut Printer::new(o), &[(&f, None)]),
        "a_lock b_lock\nc_lock\r\n\u{e9} d_lock\n",
    );
}

#[test]
fn only_matching_prints_each_match_without_its_carriage_return() {
    let f = file(b"x.txt", LINES, FOUND, 0);
    check(
        printed(
            &mut Printer::new(options(Layout::OnlyMatching)),
            &[(&f, Some(b"x"))],
        ),
        "x:1:a_lock\nx:1:b_lock\nx:3:c_lock\nx:4:d_lock\n",
    );
}

#[test]
fn vimgrep_prints_each_match_with_its_byte_column_and_line() {
    let f = file(b"x.txt", LINES, FOUND, 0);
    check(
        printed(&mut Printer::new(vimgrep(false)), &[(&f, Some(b"x"))]),
        "x:1:1:a_lock b_lock\nx:1:8:a_lock b_lock\nx:3:1:c_lock\r\nx:4:4:\u{e9} d_lock\n",
    );
    check(
        printed(&mut Printer::new(vimgrep(true)), &[(&f, Some(b"x"))]),
        "x:1:1:a_lock\nx:1:8:b_lock\nx:3:1:c_lock\nx:4:4:d_lock\n",
    );
    let mut o = vimgrep(false);
    o.context = true;
    check(
        printed(
            &mut Printer::new(o),
            &[(&file(b"x", LINES, &[(4, 3, 6)], 1), Some(b"x"))],
        ),
        "x-3-c_lock\r\nx:4:4:\u{e9} d_lock\n",
    );
}

fn vimgrep(only_matching: bool) -> PrintOptions {
    PrintOptions {
        column: true,
        ..options(Layout::Vimgrep { only_matching })
    }
}

#[test]
fn counts_add_up_over_a_files_pieces_and_go_out_when_it_ends() {
    let first = file(b"x.txt", LINES, FOUND, 0);
    let mut second = file(b"x.txt", LINES, &[(4, 3, 6)], 0);
    second.continued = true;
    let other = file(b"y.txt", LINES, &[(1, 0, 6)], 0);
    let files = [
        (&first, Some(&b"x"[..])),
        (&second, Some(&b"x"[..])),
        (&other, Some(&b"y"[..])),
    ];
    let count = |layout| printed(&mut Printer::new(options(layout)), &files);
    check(count(Layout::CountLines { per_match: false }), "x:4\ny:1\n");
    check(count(Layout::CountLines { per_match: true }), "x:5\ny:1\n");
    check(count(Layout::CountMatches), "x:5\ny:1\n");
    check(count(Layout::Files), "x\ny\n");
}

#[test]
fn null_ends_names_with_a_nul() {
    let f = file(b"x.txt", LINES, &[(2, 0, 4)], 0);
    let mut o = options(Layout::Lines);
    o.null = true;
    check(
        printed(&mut Printer::new(o), &[(&f, Some(b"x"))]),
        "x\x002:none\n",
    );
    o.layout = Layout::Files;
    check(printed(&mut Printer::new(o), &[(&f, Some(b"x"))]), "x\x00");
    o.layout = Layout::CountMatches;
    check(
        printed(&mut Printer::new(o), &[(&f, Some(b"x"))]),
        "x\x001\n",
    );
}

#[test]
fn context_lines_group_with_separators_across_files() {
    let lines: &[&[u8]] = &[b"1", b"2 hit", b"3", b"4", b"5", b"6 hit", b"7 hit", b"8"];
    let f = file(b"a", lines, &[(2, 2, 3), (6, 2, 3), (7, 2, 3)], 1);
    let g = file(b"b", lines, &[(2, 2, 3)], 1);
    let mut o = options(Layout::Lines);
    o.context = true;
    check(
        printed(&mut Printer::new(o), &[(&f, Some(b"a")), (&g, Some(b"b"))]),
        "a-1-1\na:2:2 hit\na-3-3\n--\na-5-5\na:6:6 hit\na:7:7 hit\na-8-8\n--\nb-1-1\nb:2:2 hit\nb-3-3\n",
    );
    o.layout = Layout::OnlyMatching;
    o.column = true;
    check(
        printed(&mut Printer::new(o), &[(&g, Some(b"b"))]),
        "b-1-1\nb:2:3:hit\nb-3-3\n",
    );
}

#[test]
fn json_hits_escape_as_pythons_json_dumps_and_name_bytes_as_surrogates() {
    let lines: &[&[u8]] = &[b"q\"\\\t\x07\x1b\x7f \xff \xc3\xa9 x"];
    let f = file(b"n\xffm.txt", lines, &[(1, 13, 1)], 0);
    let mut printer = Printer::new(options(Layout::Json { full: false }));
    check(
        printed(&mut printer, &[(&f, None)]),
        "{\"matches\": [{\"id\": \"sr_z\", \"file\": \"n\\udcffm.txt\", \"line\": 1, \
         \"column\": 13, \"end_line\": 1, \"byte_offset\": 1013, \"content\": \"x\", \
         \"text\": \"q\\\"\\\\\\t\\u0007\\u001b\u{7f} \u{fffd} \u{e9} x\", \"before\": [], \
         \"after\": []}",
    );
    assert!(printer.json_open());
    assert_eq!(printer.json_counts, [1]);
    let mut full = Printer::new(options(Layout::Json { full: true }));
    let got = printed(&mut full, &[(&f, None), (&f, None)]);
    assert!(
        got.ends_with(
            "\"after\": [], \"byte_length\": 1, \"unique\": false, \"encoding\": \"utf-8\"}"
        ) && got.contains("\"encoding\": \"utf-8\"}, {\"id\": \"sr_z\""),
        "{got}"
    );
    assert_eq!(full.json_counts, [1, 1]);
}

#[test]
fn numbers_print_in_decimal_and_base_36() {
    for n in [0u64, 7, 10, 35, 36, 99, 1234567, u64::MAX] {
        let mut out = Vec::new();
        push_number(&mut out, n);
        assert_eq!(out, n.to_string().into_bytes(), "{n}");
        let mut out = Vec::new();
        push_base36(&mut out, n);
        let expected = crate::print::tests::base36(n);
        assert_eq!(String::from_utf8(out).unwrap(), expected, "{n}");
    }
}

fn base36(mut n: u64) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(std::char::from_digit((n % 36) as u32, 36).unwrap());
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().collect()
}

#[test]
fn a_match_spanning_lines_needs_the_files_lines() {
    let mut f = file(b"x", LINES, &[(1, 0, 6)], 0);
    let lines = Printer::new(options(Layout::Lines));
    assert!(!lines.needs_lines(&f));
    f.hits[0].end_line = 2;
    assert!(lines.needs_lines(&f));
    assert!(!Printer::new(options(Layout::CountMatches)).needs_lines(&f));
    assert!(!Printer::new(options(Layout::Json { full: false })).needs_lines(&f));
}
