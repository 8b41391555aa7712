//! The page as HTML: one more renderer of the page the agent observes
//! (INTERFACES "`wsitec serve`").
//!
//! Every element of the observation is written, in document order, as the
//! semantic element a person or a browser agent expects — headings, `<p>`,
//! `<section>`s nested as in the source, links as `<a href>`, marker buttons
//! as buttons of a `<form method=post>`, inputs, selects and checkboxes as
//! labelled controls, the alert as `role=alert` — each carrying its stable key
//! as `data-wsite-key`. Nothing else on the page has that attribute, so a
//! driver that acts by key acts on exactly the simulator's elements.
//!
//! A page with form controls is one form: every button, and every link after
//! the first control (only those can read a form variable, §2.2), submits
//! the typed values with the click, as the simulator's episode would have
//! typed them before clicking (such links are submit buttons styled as
//! links). Links before the first control stay plain `<a href>`; following
//! one drops values typed but not sent, as leaving a page does. A link to the
//! page itself is a button too: a GET of the page's own URL only shows it
//! again (a reload), while the simulator's click on such a link is a step. A page
//! without controls uses plain links, and a small form per marker button. Every form carries the episode's token, so a form posted
//! twice or from an older copy of the page is refused.

use crate::episode::{KEY_FIELD, TOKEN_FIELD};
use std::fmt::Write;
use wsite_runtime::env::{Control, Env, InputKind, PageElement};

/// What the page shows around the site's own elements.
pub struct Frame<'a> {
    pub site_title: &'a str,
    pub domain: &'a str,
    pub token: &'a str,
    pub task: &'a str,
    /// The instruction; empty while browsing.
    pub instruction: &'a str,
}

/// The current page of `env`.
pub fn page(env: &Env<'_>, frame: &Frame<'_>) -> String {
    let obs = env.observation();
    let mut out = head(&obs.title, frame.domain);
    out.push_str(&banner(frame.site_title));
    out.push_str(&task_panel(env, frame));
    out.push_str("<main>\n");
    if let Some(alert) = &obs.alert {
        let _ = writeln!(out, "<p role=\"alert\" class=\"alert\">{}</p>", text(alert));
    }
    let elements = env.page();
    let first_control = elements.iter().position(|e| {
        matches!(
            e.control,
            Control::Input { .. } | Control::Select | Control::Checkbox { .. }
        )
    });
    let one_form = first_control.is_some();
    if one_form {
        out.push_str("<form method=\"post\" class=\"page-form\">\n");
        out.push_str(&token_field(frame.token));
        // The form's default button: Enter in a field sends the typed values
        // and presses nothing.
        let _ = writeln!(
            out,
            "<button type=\"submit\" name=\"{KEY_FIELD}\" value=\"\" class=\"default-submit\" \
             tabindex=\"-1\" aria-hidden=\"true\">Save</button>"
        );
    }
    out.push_str(&body(&elements, first_control, &obs.url, frame.token));
    if one_form {
        out.push_str("</form>\n");
    }
    if env.takes_answer() && !env.done() {
        out.push_str(&answer_form(frame.token));
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// An error page: what was refused, and the way back.
pub fn error(site_title: &str, domain: &str, title: &str, message: &str, back: &str) -> String {
    let mut out = head(title, domain);
    out.push_str(&banner(site_title));
    let _ = write!(
        out,
        "<main class=\"error\">\n<h1>{}</h1>\n<p role=\"alert\" class=\"alert\">{}</p>\n\
         <p><a href=\"{}\">Back to the page you were on</a></p>\n</main>\n</body>\n</html>\n",
        text(title),
        text(message),
        attr(&encode_path(back))
    );
    out
}

/// The task list (`GET /_wsite/`): start any task in this session.
pub fn tasks(site_title: &str, domain: &str, names: &[String], current: &str) -> String {
    let mut out = head("Tasks", domain);
    out.push_str(&banner(site_title));
    out.push_str("<main>\n<h1>Tasks</h1>\n<ul class=\"tasks\">\n");
    for name in names {
        let mark = if name == current { " (playing)" } else { "" };
        let _ = writeln!(
            out,
            "<li><form method=\"post\" action=\"/_wsite/reset\"><input type=\"hidden\" \
             name=\"task\" value=\"{}\"><button type=\"submit\">{}</button>{mark}</form></li>",
            attr(name),
            text(name)
        );
    }
    out.push_str("</ul>\n</main>\n</body>\n</html>\n");
    out
}

fn head(title: &str, domain: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<link rel=\"stylesheet\" href=\"/_wsite/style.css\">\n\
         <link rel=\"icon\" href=\"data:,\">\n</head>\n\
         <body class=\"domain-{}\">\n",
        text(title),
        attr(domain)
    )
}

fn banner(site_title: &str) -> String {
    format!(
        "<header class=\"site\"><p class=\"brand\">{}</p></header>\n",
        text(site_title)
    )
}

fn task_panel(env: &Env<'_>, frame: &Frame<'_>) -> String {
    let mut out = String::from("<aside class=\"task\" aria-label=\"Task\">\n");
    if !frame.instruction.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"instruction\">{}</p>",
            text(frame.instruction)
        );
    }
    let task = if frame.task == crate::episode::BROWSE {
        "Browsing freely"
    } else {
        frame.task
    };
    let _ = writeln!(
        out,
        "<p class=\"progress\">{} · step {}</p>",
        text(task),
        env.steps()
    );
    if env.done() {
        let outcome = if env.state().success {
            "Task complete."
        } else {
            "The episode is over."
        };
        let _ = write!(
            out,
            "<p class=\"outcome\">{outcome}</p>\n<form method=\"post\" action=\"/_wsite/reset\">\
             <input type=\"hidden\" name=\"task\" value=\"{}\"><button type=\"submit\">Start \
             again</button></form>\n",
            attr(frame.task)
        );
    }
    out.push_str("</aside>\n");
    out
}

fn token_field(token: &str) -> String {
    format!(
        "<input type=\"hidden\" name=\"{TOKEN_FIELD}\" value=\"{}\">\n",
        attr(token)
    )
}

fn answer_form(token: &str) -> String {
    format!(
        "<form method=\"post\" action=\"/_wsite/answer\" class=\"answer\" aria-label=\"Answer\">\n\
         {}<label>Your answer <input type=\"text\" name=\"answer\" autocomplete=\"off\"></label>\n\
         <button type=\"submit\">Submit answer</button>\n</form>\n",
        token_field(token)
    )
}

/// The elements, sections nested; `first_control` is the position of the
/// first form control (the page is then one form), `here` the page's URL.
fn body(
    elements: &[PageElement<'_>],
    first_control: Option<usize>,
    here: &str,
    token: &str,
) -> String {
    let mut out = String::new();
    let mut open = 0u16;
    for (i, e) in elements.iter().enumerate() {
        while open > e.depth {
            out.push_str("</section>\n");
            open -= 1;
        }
        // A link to this very page is a button: opening the page's own URL
        // only shows it again, while clicking the link is a step.
        let to_here = matches!(&e.control, Control::Navigate { href: Some(h) } if h == here);
        let look = Look {
            in_form: first_control.is_some(),
            plain_link: first_control.is_none_or(|c| i < c) && !to_here,
        };
        out.push_str(&element(e, look, token));
        if e.element.role == "section" {
            open += 1;
        }
    }
    for _ in 0..open {
        out.push_str("</section>\n");
    }
    out
}

/// How an element is written.
#[derive(Clone, Copy)]
struct Look {
    /// Inside the page's one form.
    in_form: bool,
    /// A link here is a plain `<a href>`.
    plain_link: bool,
}

fn element(e: &PageElement<'_>, look: Look, token: &str) -> String {
    let el = e.element;
    let key = format!("data-wsite-key=\"{}\"", attr(&el.key));
    let label = text(&el.text);
    let level = usize::from(e.depth).saturating_add(1).min(6);
    match (&e.control, el.role) {
        (_, "section") => format!(
            "<section {key} aria-label=\"{}\">\n<h{n}>{label}</h{n}>\n",
            attr(&el.text),
            n = (level + 1).min(6)
        ),
        (_, "heading") => format!("<h{level} {key}>{label}</h{level}>\n"),
        (_, "image") => format!(
            "<figure class=\"image\" role=\"img\" aria-label=\"{}\" {key}><span>{label}</span></figure>\n",
            attr(&el.text)
        ),
        (Control::Navigate { href: Some(h) }, "link") if look.plain_link => format!(
            "<p class=\"link\"><a href=\"{}\" {key}>{label}</a></p>\n",
            attr(&encode_path(h))
        ),
        (Control::Navigate { .. } | Control::Marker, role) => {
            let class = if role == "link" { "link" } else { "button" };
            let button = format!(
                "<button type=\"submit\" name=\"{KEY_FIELD}\" value=\"{}\" class=\"{class}\" {key}>{label}</button>",
                attr(&el.key)
            );
            if look.in_form {
                format!("<p class=\"{class}\">{button}</p>\n")
            } else {
                format!(
                    "<form method=\"post\" class=\"{class}\">{}{button}</form>\n",
                    token_field(token).trim_end()
                )
            }
        }
        (Control::Disabled, "link") => format!(
            "<p class=\"link\"><a class=\"disabled\" role=\"link\" aria-disabled=\"true\" {key}>{label}</a></p>\n"
        ),
        (Control::Disabled, _) => format!(
            "<p class=\"button\"><button type=\"button\" disabled {key}>{label}</button></p>\n"
        ),
        (Control::Input { kind }, _) => format!(
            "<p class=\"field\"><label>{label} <input type=\"text\"{} name=\"{}\" value=\"{}\" {key}></label></p>\n",
            input_hints(*kind),
            attr(&el.key),
            attr(el.value.as_deref().unwrap_or(""))
        ),
        (Control::Select, _) => select(e, &key),
        (Control::Checkbox { on }, _) => format!(
            "<p class=\"field\"><input type=\"hidden\" name=\"{name}\" value=\"off\"><label>\
             <input type=\"checkbox\" name=\"{name}\" value=\"on\"{}{SEND_ON_CHANGE} {key}> {label}</label></p>\n",
            if *on { " checked" } else { "" },
            name = attr(&el.key)
        ),
        _ => format!("<p {key}>{label}</p>\n"),
    }
}

fn select(e: &PageElement<'_>, key: &str) -> String {
    let el = e.element;
    let current = el.value.as_deref().unwrap_or("");
    let mut chosen = false;
    let mut options = String::new();
    for (i, option) in el.options.iter().enumerate() {
        // The first option showing the current value is the chosen one.
        let selected = !chosen && option == current;
        chosen |= selected;
        let _ = write!(
            options,
            "<option value=\"{i}\"{}>{}</option>",
            if selected { " selected" } else { "" },
            text(option)
        );
    }
    format!(
        "<p class=\"field\"><label>{} <select name=\"{}\"{SEND_ON_CHANGE} {key}>{options}</select></label></p>\n",
        text(&el.text),
        attr(&el.key)
    )
}

/// Sends the page form when a select or checkbox changes.
const SEND_ON_CHANGE: &str = " onchange=\"this.form.requestSubmit()\"";

/// Hints for the on-screen keyboard. Inputs stay `type=text` so that what is
/// typed reaches the server as typed (the simulator decides what parses).
fn input_hints(kind: InputKind) -> &'static str {
    match kind {
        InputKind::Int => " inputmode=\"numeric\"",
        InputKind::Money => " inputmode=\"decimal\"",
        InputKind::Date => " placeholder=\"YYYY-MM-DD\"",
        InputKind::Time => " placeholder=\"HH:MM\"",
        InputKind::Text | InputKind::Other => "",
    }
}

/// Text or an attribute value, with the five markup characters escaped (the
/// site map's SVG writer escapes the same way).
pub fn text(s: &str) -> String {
    wsite_runtime::graph::draw::svg::escape(s)
}

/// An attribute value (double-quoted), escaped.
pub fn attr(s: &str) -> String {
    text(s)
}

/// A page URL for an `href` or a `Location`: every byte but unreserved
/// characters and `/` percent-encoded.
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A request path with its percent-escapes decoded; `None` for a malformed
/// escape or bytes that are not UTF-8.
pub fn decode_path(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(text("<b>&</b>"), "&lt;b&gt;&amp;&lt;/b&gt;");
        assert_eq!(attr("a\"b'c"), "a&quot;b&apos;c");
    }

    #[test]
    fn paths_round_trip_through_percent_encoding() {
        for p in ["/", "/product/44", "/search/red shoes", "/q/ünï/%/?#&\"<"] {
            let enc = encode_path(p);
            assert!(enc.bytes().all(|b| b.is_ascii_graphic()), "{enc}");
            assert_eq!(decode_path(&enc).as_deref(), Some(p));
        }
        assert_eq!(decode_path("/a%2"), None);
        assert_eq!(decode_path("/a%zz"), None);
        assert_eq!(decode_path("/%FF"), None);
    }
}
