//! Unit tests of the formatter: exact layouts for messy input, comments in
//! every position, idempotence, refusal of broken files, and no panics.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use proptest::prelude::*;

fn fmt_ok(src: &str) -> String {
    match format(src) {
        Ok(out) => out,
        Err(e) => panic!("format failed: {e}\n{src}"),
    }
}

/// Formats `src`, checks the result against `want` and that formatting it
/// again changes nothing.
fn check(src: &str, want: &str) {
    let out = fmt_ok(src);
    assert_eq!(out, want, "\n--- got ---\n{out}\n--- want ---\n{want}");
    assert_eq!(fmt_ok(&out), out, "not idempotent");
}

const MESSY: &str = r#"// header comment
///   Doc for the site.   
site   Shop{title "S"  domain ecommerce
start Home   }


table Product{ name :Text , price:Money
   stock : Int   // how many
}
seed Product [{name:"A",price:$1.00,stock:3},
{ name : "B" , price : $2.00 , stock : 0 }]

page Home {

for p in Product where p.stock>0 order by p.price desc limit 5 {
        link "{p.name}"->ProductPage( p )
   }

}

page ProductPage(p :Product) {
      text "Price: {p.price}"
    button #buy "Buy" -> buy( p ) disabled when p.stock==0
  link "Back"->Home
}

marker buy(p: Product)
writes Product.stock
    requires p.stock > 0
       else "Out of stock"
{
  set p.stock = p.stock-1
  if p.stock == -1 { reject "x" }
  else { go Home }
}

task buy_a {
  say "Buy A."
  goal Product[1].stock == 2
     and Product[2].stock == - 1 * 2
}"#;

const TIDY: &str = r#"// header comment
///   Doc for the site.
site Shop { title "S"  domain ecommerce
  start Home }

table Product { name: Text, price: Money
  stock: Int    // how many
}
seed Product [ { name: "A", price: $1.00, stock: 3 },
  { name: "B", price: $2.00, stock: 0 } ]

page Home {
  for p in Product where p.stock > 0 order by p.price desc limit 5 {
    link "{p.name}" -> ProductPage(p)
  }
}

page ProductPage(p: Product) {
  text "Price: {p.price}"
  button #buy "Buy" -> buy(p) disabled when p.stock == 0
  link "Back" -> Home
}

marker buy(p: Product)
  writes Product.stock
  requires p.stock > 0
     else "Out of stock"
{
  set p.stock = p.stock - 1
  if p.stock == -1 { reject "x" }
  else { go Home }
}

task buy_a {
  say "Buy A."
  goal Product[1].stock == 2
     and Product[2].stock == -1 * 2
}
"#;

#[test]
fn normalises_spacing_indentation_and_blank_lines() {
    check(MESSY, TIDY);
}

#[test]
fn lays_out_page_guards_lets_and_offsets() {
    let src = r#"page Account(u:User) at "/a/{u.id}" guard session.me!=none else SignIn
guard session.me==u else Profile( u ){
let total=sum(l.qty*l.price for l in Line)
  for l in Line order by l.qty desc limit 2 offset  total/2 {
      let sub=l.qty*2
    text "{sub}"
  }
}
page P guard x else Q { text "t" }"#;
    let want = r#"page Account(u: User) at "/a/{u.id}" guard session.me != none else SignIn
  guard session.me == u else Profile(u) {
  let total = sum(l.qty * l.price for l in Line)
  for l in Line order by l.qty desc limit 2 offset total / 2 {
    let sub = l.qty * 2
    text "{sub}"
  }
}
page P guard x else Q { text "t" }
"#;
    check(src, want);
}

#[test]
fn keeps_comments_in_every_position() {
    let src = r#"// leading comment


/// Doc line one.
/// Doc line two.
site S {   // after an opening brace
// before the first item
    title "T" // trailing
  domain other
  start Home
      // before a closing brace
  }

  // between declarations
enum Colour { red, // after a comma
      green
// among variants
  blue }

page Home {
        text "a // not a comment"
  link "Home" -> Home // on a link
  if 1 > 2 // in the middle of an element
  {
       text "b"
  }
}

marker m(x: Int) // after the header
      // between clauses
reads Colour
  writes     Colour
{
  let y = x +   // inside an expression
    1
}
    // at the end
"#;
    let want = r#"// leading comment

/// Doc line one.
/// Doc line two.
site S {   // after an opening brace
  // before the first item
  title "T" // trailing
  domain other
  start Home
  // before a closing brace
}

// between declarations
enum Colour { red, // after a comma
  green
  // among variants
  blue }

page Home {
  text "a // not a comment"
  link "Home" -> Home // on a link
  if 1 > 2 // in the middle of an element
  {
    text "b"
  }
}

marker m(x: Int) // after the header
  // between clauses
  reads Colour
  writes Colour
{
  let y = x +   // inside an expression
    1
}
// at the end
"#;
    check(src, want);
    let out = fmt_ok(src);
    for line in src.lines() {
        if let Some(at) = line.find("// ") {
            let comment = line[at..].trim_end();
            assert!(out.contains(comment), "lost {comment:?}");
        }
    }
}

#[test]
fn doc_comments_stay_attached() {
    let src =
        "/// The shop.\nsite S { title \"T\" domain other start Home }\npage Home { text \"x\" }\n";
    let before = parse(src).expect("parses");
    let out = fmt_ok(src);
    let after = parse(&out).expect("parses");
    assert_eq!(before.decls[0].doc, after.decls[0].doc);
}

#[test]
fn trailing_comments_keep_their_column() {
    check(
        "table T {\n    a: Int      // one\n    bb: Text    // two\n}\n",
        "table T {\n  a: Int      // one\n  bb: Text    // two\n}\n",
    );
}

#[test]
fn continuation_lines_keep_their_relative_depth() {
    let src = "invariant i:\n all e in E: e.x > 0\n     or e.y > 0\n";
    check(
        src,
        "invariant i:\n  all e in E: e.x > 0\n     or e.y > 0\n",
    );
    // The body of a block whose header spans lines sits inside the header's
    // first line, and its `}` lines up with that.
    check(
        "page P {\n      if a\n   and b {\n        text \"x\"\n      }\n}\n",
        "page P {\n  if a\n    and b {\n    text \"x\"\n  }\n}\n",
    );
}

#[test]
fn brackets_split_over_lines_indent_by_depth() {
    check(
        "task t {\nsay \"x\"\ngoal f(\na,\n   b\n   )\nkey [\n  Home,\n #go\n]\n}\n",
        "task t {\n  say \"x\"\n  goal f(\n    a,\n    b\n  )\n  key [\n    Home,\n    #go\n  ]\n}\n",
    );
}

#[test]
fn spacing_follows_the_grammar() {
    check(
        "invariant i: not(a) and -(b) - -c == f( x , y )[0] . z and x in[1,2]\n",
        "invariant i: not (a) and -(b) - -c == f(x, y)[0].z and x in [1, 2]\n",
    );
    check(
        "use std :: cart ( Item = Product , Owner=User )\n",
        "use std::cart(Item = Product, Owner = User)\n",
    );
    check(
        "session { me : User? = none  q: Text = \"\" }\n",
        "session { me: User? = none  q: Text = \"\" }\n",
    );
    check(
        "page P { select s: T \"l\" from x in T where count( y in T where y.a>1 )>0 show x.n }\n",
        "page P { select s: T \"l\" from x in T where count(y in T where y.a > 1) > 0 show x.n }\n",
    );
}

#[test]
fn blank_lines_and_ends_are_trimmed() {
    check(
        "\n\n  enum E { a }   \n\n\n\nenum F { b }\n\n\n",
        "enum E { a }\n\nenum F { b }\n",
    );
    check("", "");
    check("  \n\t\n", "");
    check("// only\r\n", "// only\n");
}

#[test]
fn text_literals_are_untouched() {
    check(
        "page P {  text   \"a  {  x +1 }  \\\" b\\{\"  }\n",
        "page P { text \"a  {  x +1 }  \\\" b\\{\" }\n",
    );
}

#[test]
fn broken_files_are_refused() {
    for bad in [
        "page P {\n  text \"open\n}\n",
        "page P { text \"a\" \n",
        "site S { title }\n",
        "invariant i: $1.999 > $0\n",
        "page P { link \"x\" => Q }\n",
        &format!("invariant i: {}1{}\n", "(".repeat(500), ")".repeat(500)),
    ] {
        match format(bad) {
            Err(FormatError::Syntax(diags)) => assert!(!diags.is_empty()),
            other => panic!("{bad:?} gave {other:?}"),
        }
    }
}

#[test]
fn deep_but_accepted_nesting_formats() {
    let sums = format!("invariant i: 1{} > 0\n", " +  1".repeat(240));
    assert_eq!(fmt_ok(&sums), sums.replace("+  1", "+ 1"));
    let parens = format!(
        "invariant i: {}1{} > 0\n",
        "( ".repeat(190),
        " )".repeat(190)
    );
    assert_eq!(
        fmt_ok(&parens),
        format!("invariant i: {}1{} > 0\n", "(".repeat(190), ")".repeat(190))
    );
}

#[test]
fn other_errors_do_not_stop_formatting() {
    // Name and type errors are the checker's business; the layout is still clear.
    check(
        "page P{text \"{nope + 1}\"}\n",
        "page P { text \"{nope + 1}\" }\n",
    );
}

const PIECES: &[&str] = &[
    "page ",
    "P",
    " {",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "\n",
    "  ",
    "text ",
    "\"a\"",
    "\"{x}\"",
    "link ",
    "-> ",
    "-",
    "1",
    "$2.50",
    "@2026-01-01",
    "// c\n",
    "/// d\n",
    "x",
    ".y",
    " == ",
    " and ",
    "not ",
    "for ",
    " in ",
    "T",
    "if ",
    "else ",
    "set ",
    " = ",
    "#n ",
    "table ",
    "seed ",
    "marker ",
    "writes ",
    "task ",
    "goal ",
    "say ",
    "\t",
    "?",
];

/// Formatting `text` either refuses it for its syntax errors or gives a
/// text that formats to itself.
fn stable_or_refused(text: &str) -> Result<(), TestCaseError> {
    match format(text) {
        Ok(out) => {
            prop_assert_eq!(format(&out).ok(), Some(out.clone()), "input:\n{}", text);
            Ok(())
        }
        Err(FormatError::Syntax(_)) => Ok(()),
        Err(e) => Err(TestCaseError::fail(format!("{e}\ninput:\n{text}"))),
    }
}

const EDIT_CHARS: &[char] = &[
    '{', '}', '(', ')', '[', ']', '"', '$', '@', '.', ':', '-', '#', '\n', 'x', '0', ' ', ',', '/',
    '?', '=',
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
        stable_or_refused(&text)?;
    }

    #[test]
    fn token_soup_never_panics_and_is_stable(
        pieces in prop::collection::vec(prop::sample::select(PIECES), 0..60),
    ) {
        stable_or_refused(&pieces.concat())?;
    }

    #[test]
    fn edited_modules_format_stably_or_are_refused(
        module in 0usize..crate::stdlib::MODULES.len(),
        edits in prop::collection::vec(
            (any::<prop::sample::Index>(), 0u8..3, prop::sample::select(EDIT_CHARS)),
            1..6,
        ),
    ) {
        // Character edits give odd but sometimes valid programs.
        let (_, text) = crate::stdlib::MODULES[module];
        let mut chars: Vec<char> = text.chars().collect();
        for (at, kind, ch) in edits {
            let i = at.index(chars.len().max(1)).min(chars.len());
            match kind {
                0 if i < chars.len() => {
                    chars.remove(i);
                }
                1 if i < chars.len() => chars[i] = ch,
                _ => chars.insert(i, ch),
            }
        }
        stable_or_refused(&chars.into_iter().collect::<String>())?;
    }

    #[test]
    fn scrambled_indentation_formats_stably(
        shifts in prop::collection::vec(0usize..7, 40),
    ) {
        // The tidy file with every line's indentation scrambled.
        let scrambled: String = TIDY
            .lines()
            .zip(shifts.iter().cycle())
            .map(|(line, n)| format!("{}{}\n", " ".repeat(*n), line.trim_start()))
            .collect();
        let out = format(&scrambled).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(format(&out).ok(), Some(out.clone()));
    }

    #[test]
    fn whitespace_between_tokens_never_stops_formatting(
        module in 0usize..crate::stdlib::MODULES.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0usize..5), 1..12),
    ) {
        // A standard-library module with blanks, tabs and line breaks added
        // between random tokens: still the same program, so it must format,
        // stably, whatever the new line structure is.
        let (_, text) = crate::stdlib::MODULES[module];
        let tokens = lex::tokens(text);
        let mut at: Vec<(usize, &str)> = edits
            .iter()
            .map(|(i, kind)| {
                let t = tokens[i.index(tokens.len())];
                (t.start, ["\n", " ", "\n\n\n", "\t ", "\n      "][*kind])
            })
            .collect();
        at.sort_by_key(|&(pos, _)| std::cmp::Reverse(pos));
        let mut edited = text.to_string();
        for (pos, blank) in at {
            edited.insert_str(pos, blank);
        }
        let out = format(&edited).map_err(|e| TestCaseError::fail(format!("{e}\n{edited}")))?;
        prop_assert_eq!(format(&out).ok(), Some(out.clone()), "{}", edited);
    }
}
