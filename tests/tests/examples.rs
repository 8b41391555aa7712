//! The example sites are the showcase: each must check with no diagnostic at all
//! and have the size the project promises (8+ pages, several markers and
//! invariants, 3+ tasks mixing goals and answers).

#![allow(clippy::expect_used, clippy::panic)]

use wsitec::syntax::ast::DeclKind;

#[test]
fn every_domain_has_an_example_that_checks_clean() {
    let examples = wsite_tests::examples();
    for domain in wsitec::gen::DOMAINS {
        assert!(
            examples.iter().any(|p| p
                .parent()
                .and_then(|d| d.file_name())
                .is_some_and(|d| d == domain)),
            "no example for domain `{domain}`"
        );
    }
    let mut failures = Vec::new();
    for path in &examples {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let compiled = wsitec::compile_str(&path.display().to_string(), &text);
        if !compiled.diagnostics.is_empty() {
            let report = wsitec::diagnostics::human::SourceDb::new(&compiled.sources)
                .render_plain(&compiled.diagnostics);
            failures.push(report);
        }
        // A clean example lowers to the IR the runtime runs.
        assert!(
            compiled.program.is_some(),
            "{}: did not lower",
            path.display()
        );
        let decls: Vec<&DeclKind> = compiled
            .files
            .iter()
            .flat_map(|f| &f.decls)
            .map(|d| &d.kind)
            .collect();
        let count = |f: fn(&DeclKind) -> bool| decls.iter().filter(|d| f(d)).count();
        let pages = count(|d| matches!(d, DeclKind::Page(_)));
        let markers = count(|d| matches!(d, DeclKind::Marker(_)));
        let invariants = count(|d| matches!(d, DeclKind::Invariant(_)));
        let goals = count(|d| matches!(d, DeclKind::Task(t) if t.goal.is_some()));
        let answers = count(|d| matches!(d, DeclKind::Task(t) if t.answer.is_some()));
        let name = path.display();
        assert!(pages >= 8, "{name}: {pages} pages");
        assert!(markers >= 3, "{name}: {markers} markers");
        assert!(invariants >= 2, "{name}: {invariants} invariants");
        assert!(
            goals >= 1 && answers >= 1 && goals + answers >= 3,
            "{name}: {goals} goal and {answers} answer tasks"
        );
    }
    assert!(
        failures.is_empty(),
        "examples with diagnostics:\n{}",
        failures.join("\n")
    );
}
