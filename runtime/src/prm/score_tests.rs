//! Hand-computed accuracies for `score` (ties, missing, malformed, unknown
//! and duplicate ids, judge errors, macro against micro).

use super::*;

fn item(id: &str, domain: &str) -> Item {
    Item {
        id: id.into(),
        domain: domain.into(),
        rejected: 4,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn perfect_scores_and_preferences_are_all_right() {
    let items = [item("a", "shop"), item("b", "bank")];
    let text = r#"{"id":"a","judge":"j","scores":[5,1,2,3,4]}
{"id":"b","preferences":[true,true,true,true]}"#;
    let r = score(&items, text);
    assert_eq!(r.judge.as_deref(), Some("j"));
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert_eq!(r.overall.pairs_correct, 8);
    assert!(close(r.overall.pairwise(), 1.0) && close(r.overall.bon(), 1.0));
}

#[test]
fn a_tie_is_wrong() {
    let items = [item("a", "shop")];
    // Chosen 3 against 3 (tie), 1, 2, 4: right on 1 and 2 only.
    let r = score(&items, r#"{"id":"a","scores":[3,3,1,2,4]}"#);
    assert_eq!(r.overall.pairs_correct, 2);
    assert!(close(r.overall.pairwise(), 0.5));
    assert_eq!(r.overall.bon_correct, 0);
}

#[test]
fn missing_malformed_duplicate_and_errors_count_wrong() {
    let items = [
        item("a", "shop"),
        item("b", "shop"),
        item("c", "shop"),
        item("d", "shop"),
        item("e", "shop"),
        item("f", "shop"),
    ];
    let text = r#"{"id":"a","scores":[9,1,1,1,1]}
not json
{"id":"b","scores":[9,1,1]}
{"id":"c","error":"timeout"}
{"id":"d","scores":[9,1,1,1,1]}
{"id":"d","scores":[9,1,1,1,1]}
{"id":"zz","scores":[9,1,1,1,1]}
{"id":"e","scores":[9,"x",1,1,1]}

{"scores":[1,2,3,4,5]}"#;
    let r = score(&items, text);
    // Only `a` counts: 4 of 24 pairs, 1 of 6 instances.
    assert_eq!(r.overall.pairs, 24);
    assert_eq!(r.overall.pairs_correct, 4);
    assert!(close(r.overall.pairwise(), 4.0 / 24.0));
    assert!(close(r.overall.bon(), 1.0 / 6.0));
    let counts = r.problem_counts();
    assert_eq!(counts.get("malformed"), Some(&4), "{:?}", r.problems);
    assert_eq!(counts.get("judge error"), Some(&1));
    assert_eq!(counts.get("duplicate"), Some(&1));
    assert_eq!(counts.get("unknown id"), Some(&1));
    assert_eq!(counts.get("missing"), Some(&1)); // f
    assert!(r.problems.contains(&Problem::Malformed {
        line: 3,
        id: Some("b".into()),
        why: Malformed::Arity {
            expected: 5,
            found: 3
        }
    }));
    assert!(r.problems.contains(&Problem::Missing { id: "f".into() }));
}

#[test]
fn macro_average_differs_from_micro() {
    // shop: 3 instances all right; bank: 1 instance, 2 of 4 pairs right.
    let items = [
        item("s1", "shop"),
        item("s2", "shop"),
        item("s3", "shop"),
        item("b1", "bank"),
    ];
    let text = r#"{"id":"s1","scores":[1,0,0,0,0]}
{"id":"s2","scores":[1,0,0,0,0]}
{"id":"s3","preferences":[true,true,true,true]}
{"id":"b1","preferences":[true,false,true,false]}"#;
    let r = score(&items, text);
    assert!(close(r.overall.pairwise(), 14.0 / 16.0));
    assert!(close(r.overall.bon(), 0.75));
    let (p, b) = r.macro_avg();
    assert!(close(p, (1.0 + 0.5) / 2.0), "{p}");
    assert!(close(b, (1.0 + 0.0) / 2.0), "{b}");
    assert!(close(r.domains["bank"].pairwise(), 0.5));
}

#[test]
fn malformed_lines_say_why() {
    assert_eq!(parse_line("[1]").unwrap_err().1, Malformed::NotObject);
    assert_eq!(parse_line(r#"{"id":3}"#).unwrap_err().1, Malformed::NoId);
    assert_eq!(
        parse_line(r#"{"id":"a","scores":[1],"error":"x"}"#)
            .unwrap_err()
            .1,
        Malformed::NoAnswer
    );
    assert_eq!(
        parse_line(r#"{"id":"a","preferences":[1,0]}"#)
            .unwrap_err()
            .1,
        Malformed::WrongType("preferences")
    );
    assert!(matches!(
        parse_line("{\"id\":\"a\",\"scores\":[1e999]}"),
        Err((_, _))
    ));
}
