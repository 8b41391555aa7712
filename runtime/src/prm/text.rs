//! The text forms of candidate actions (docs/prm.md, "Instances"): wsite's
//! own line, which extends the §5.2 element line with the action's kind and
//! text (`click [7] link "ThinkPad X1"`, `type [4] input "Name" "Maya"`,
//! `answer "42"`), and the BrowserGym calls WebPRMBench records
//! (`click('7')`, `fill('4', 'Maya')`, `select_option('5', 'Large')`,
//! `send_msg_to_user('42')`), written and read back.

use crate::env::{quote, Action, ActionKind, ObsElement};
use std::collections::BTreeSet;

/// `kind [i] role "text"` plus the typed, selected or answered text.
pub fn action_line(elements: &[ObsElement], action: &Action) -> String {
    let kind = kind_name(action.kind);
    let mut line = String::from(kind);
    if let Some(i) = action.element {
        match elements.iter().find(|e| e.index == i) {
            Some(e) => line.push_str(&format!(" [{i}] {} {}", e.role, quote(&e.text))),
            None => line.push_str(&format!(" [{i}]")),
        }
    }
    if let Some(t) = &action.text {
        line.push(' ');
        line.push_str(&quote(t));
    }
    line
}

/// The action's kind as the protocols spell it.
pub fn kind_name(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Click => "click",
        ActionKind::Type => "type",
        ActionKind::Select => "select",
        ActionKind::Answer => "answer",
    }
}

/// The BrowserGym call for `action`, the element's index as its bid.
pub fn browsergym(action: &Action) -> String {
    let bid = action.element.map(|e| e.to_string()).unwrap_or_default();
    let text = action.text.as_deref().unwrap_or("");
    match action.kind {
        ActionKind::Click => format!("click({})", py_str(&bid)),
        ActionKind::Type => format!("fill({}, {})", py_str(&bid), py_str(text)),
        ActionKind::Select => format!("select_option({}, {})", py_str(&bid), py_str(text)),
        ActionKind::Answer => format!("send_msg_to_user({})", py_str(text)),
    }
}

/// Reads a BrowserGym call back into an action whose element is the bid
/// read as a 1-based index; `None` for any other call or a bid that is not
/// one (such actions stay text).
pub fn parse_browsergym(call: &str) -> Option<Action> {
    let call = call.trim();
    let open = call.find('(')?;
    let name = call[..open].trim();
    let inner = call[open + 1..].strip_suffix(')')?;
    let args = py_args(inner)?;
    let element = |bid: &str| bid.parse::<usize>().ok().filter(|&e| e > 0);
    match (name, args.as_slice()) {
        ("click", [bid]) => Some(Action {
            kind: ActionKind::Click,
            element: Some(element(bid)?),
            text: None,
        }),
        ("fill", [bid, text]) => Some(Action {
            kind: ActionKind::Type,
            element: Some(element(bid)?),
            text: Some(text.clone()),
        }),
        ("select_option", [bid, text]) => Some(Action {
            kind: ActionKind::Select,
            element: Some(element(bid)?),
            text: Some(text.clone()),
        }),
        ("send_msg_to_user", [text]) => Some(Action {
            kind: ActionKind::Answer,
            element: None,
            text: Some(text.clone()),
        }),
        _ => None,
    }
}

/// The lowercase words of `text` (letters and digits), as a set: what the
/// hard-negative ranking and the text-overlap judge compare.
pub fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// |a ∩ b| / |a ∪ b| (0 for two empty sets).
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// A Python string literal in single quotes.
fn py_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for ch in s.chars() {
        match ch {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Comma-separated Python string literals (single or double quoted, with
/// `\\`, `\'`, `\"` and `\n` escapes); `None` when anything else is there.
fn py_args(inner: &str) -> Option<Vec<String>> {
    let mut args = Vec::new();
    let mut chars = inner.trim().chars().peekable();
    while chars.peek().is_some() {
        let q = chars.next()?;
        if q != '\'' && q != '"' {
            return None;
        }
        let mut s = String::new();
        loop {
            match chars.next()? {
                '\\' => match chars.next()? {
                    'n' => s.push('\n'),
                    c => s.push(c),
                },
                c if c == q => break,
                c => s.push(c),
            }
        }
        args.push(s);
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            None => break,
            Some(',') => {
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
            }
            Some(_) => return None,
        }
    }
    Some(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(index: usize, role: &'static str, text: &str) -> ObsElement {
        ObsElement {
            index,
            key: format!("#e{index}"),
            role,
            text: text.into(),
            value: None,
            options: Vec::new(),
            disabled: false,
        }
    }

    #[test]
    fn lines_name_kind_element_and_text() {
        let page = [
            element(4, "input", "Name"),
            element(7, "link", "X1 \"Carbon\""),
        ];
        let click = Action {
            kind: ActionKind::Click,
            element: Some(7),
            text: None,
        };
        assert_eq!(
            action_line(&page, &click),
            r#"click [7] link "X1 \"Carbon\"""#
        );
        let typing = Action {
            kind: ActionKind::Type,
            element: Some(4),
            text: Some("Maya".into()),
        };
        assert_eq!(
            action_line(&page, &typing),
            r#"type [4] input "Name" "Maya""#
        );
        let answer = Action {
            kind: ActionKind::Answer,
            element: None,
            text: Some("42".into()),
        };
        assert_eq!(action_line(&page, &answer), r#"answer "42""#);
    }

    #[test]
    fn browsergym_calls_round_trip() {
        for action in [
            Action {
                kind: ActionKind::Click,
                element: Some(12),
                text: None,
            },
            Action {
                kind: ActionKind::Type,
                element: Some(3),
                text: Some("O'Brien \\ \"quoted\"\nnext".into()),
            },
            Action {
                kind: ActionKind::Select,
                element: Some(5),
                text: Some("Large".into()),
            },
            Action {
                kind: ActionKind::Answer,
                element: None,
                text: Some("$12.50".into()),
            },
        ] {
            let call = browsergym(&action);
            assert_eq!(parse_browsergym(&call).as_ref(), Some(&action), "{call}");
        }
        assert_eq!(
            parse_browsergym(r#"fill("3", "a, b")"#).and_then(|a| a.text),
            Some("a, b".into())
        );
        for bad in [
            "click('a12')",
            "scroll(0, 200)",
            "click('3'",
            "fill('3')",
            "click(3)",
            "",
        ] {
            assert_eq!(parse_browsergym(bad), None, "{bad}");
        }
    }
}
