//! The text editor under the injector: the raw site as lines, each
//! defect anchored on the line where a diagnostic should report it (so that
//! inserted lines move the anchors with them), and the edits of the kinds
//! drawn at a rate (links, pages, buttons, text, seed data, tasks).

use super::{DefectKind, Injected, RawSite};
use crate::gen::rng::Rng;
use crate::gen::GeneratedSite;

/// A line of the site being edited, with the defects anchored on it.
pub(super) struct Line {
    pub text: String,
    anchors: Vec<usize>,
}

/// What is being injected, before line numbers are known.
struct Pending {
    kind: DefectKind,
    expect: Vec<&'static str>,
    what: String,
}

pub(super) struct Editor {
    pub lines: Vec<Line>,
    pending: Vec<Pending>,
    /// Lines already edited, so two defects never share one.
    pub used: Vec<bool>,
    next_name: usize,
    /// Only defects that keep the program loadable.
    runnable: bool,
}

impl Editor {
    pub fn new(site: &GeneratedSite, runnable: bool) -> Editor {
        let lines: Vec<Line> = site
            .text
            .lines()
            .map(|l| Line {
                text: l.to_string(),
                anchors: Vec::new(),
            })
            .collect();
        let n = lines.len();
        Editor {
            lines,
            pending: Vec::new(),
            used: vec![false; n],
            next_name: 0,
            runnable,
        }
    }

    /// Injects `count` defects of each kind, where the site has room.
    pub fn inject_counts(&mut self, counts: &[(DefectKind, usize)], rng: &mut Rng) {
        for &(kind, count) in counts {
            for _ in 0..count {
                self.one(kind, rng);
            }
        }
    }

    /// The raw site: the edited text and the defects at their final lines.
    pub fn finish(self, site: &GeneratedSite, instances: usize, aimed_blocked: usize) -> RawSite {
        let mut defects: Vec<Injected> = self
            .pending
            .into_iter()
            .map(|p| Injected {
                kind: p.kind,
                category: p.kind.category(),
                blocking: p.kind.blocks_tasks(),
                line: 0,
                expect: p.expect,
                what: p.what,
            })
            .collect();
        let mut text = String::new();
        for (i, line) in self.lines.iter().enumerate() {
            for &a in &line.anchors {
                defects[a].line = i + 1;
            }
            text.push_str(&line.text);
            text.push('\n');
        }
        let mut raw = site.clone();
        raw.text = text;
        RawSite {
            site: raw,
            defects,
            instances,
            aimed_blocked,
        }
    }
}

impl Editor {
    /// Injects one defect of `kind`, if the site has a place for it.
    fn one(&mut self, kind: DefectKind, rng: &mut Rng) {
        let _ = match kind {
            DefectKind::BrokenLink => self.broken_link(rng),
            DefectKind::OrphanPage => self.orphan_page(),
            DefectKind::MissingButton => self.missing_button(rng),
            DefectKind::PlaceholderText => self.placeholder(rng),
            DefectKind::NegativePrice => self.negative_price(rng),
            DefectKind::ImpossibleDate => self.impossible_date(rng),
            DefectKind::ContradictoryData => self.contradictory(rng),
            DefectKind::ImpossibleTask => self.impossible_task(rng),
            // Aimed at a task by `block`, never drawn at a rate.
            DefectKind::ShortHorizon
            | DefectKind::UnreachableGoal
            | DefectKind::ContradictoryGuard => None,
        };
    }

    /// Records a defect anchored on line `at`.
    pub fn record(&mut self, at: usize, kind: DefectKind, expect: &[&'static str], what: String) {
        self.lines[at].anchors.push(self.pending.len());
        self.pending.push(Pending {
            kind,
            expect: expect.to_vec(),
            what,
        });
    }

    /// A random unused line that `want` accepts.
    fn pick(&self, rng: &mut Rng, want: impl Fn(&str) -> bool) -> Option<usize> {
        let all: Vec<usize> = (0..self.lines.len()).collect();
        self.pick_among(rng, &all, want)
    }

    /// The indices of the lines of every page declared by a line starting
    /// with `decl`, its declaration and closing brace included.
    pub fn page_lines(&self, decl: &str) -> Vec<usize> {
        let mut out = Vec::new();
        let mut inside = false;
        for (i, l) in self.lines.iter().enumerate() {
            inside |= l.text.starts_with(decl);
            if inside {
                out.push(i);
            }
            inside &= l.text != "}";
        }
        out
    }

    /// A random unused line among `among` that `want` accepts.
    fn pick_among(
        &self,
        rng: &mut Rng,
        among: &[usize],
        want: impl Fn(&str) -> bool,
    ) -> Option<usize> {
        let places: Vec<usize> = among
            .iter()
            .copied()
            .filter(|&i| !self.used[i] && want(&self.lines[i].text))
            .collect();
        (!places.is_empty()).then(|| *rng.pick(&places))
    }

    pub fn edit(&mut self, at: usize, text: String) {
        self.lines[at].text = text;
        self.used[at] = true;
    }

    /// Inserts a line after `at`; returns its index.
    fn insert_after(&mut self, at: usize, text: String) -> usize {
        self.lines.insert(
            at + 1,
            Line {
                text,
                anchors: Vec::new(),
            },
        );
        self.used.insert(at + 1, true);
        at + 1
    }

    fn append(&mut self, text: &str) -> usize {
        self.lines.push(Line {
            text: String::new(),
            anchors: Vec::new(),
        });
        self.used.push(true);
        let first = self.lines.len();
        for l in text.lines() {
            self.lines.push(Line {
                text: l.to_string(),
                anchors: Vec::new(),
            });
            self.used.push(true);
        }
        first
    }

    fn fresh(&mut self, stem: &str) -> String {
        self.next_name += 1;
        format!("{stem}{}", self.next_name)
    }

    /// `link "…" -> Page(…)` becomes a link to `PageView(…)`.
    fn broken_link(&mut self, rng: &mut Rng) -> Option<()> {
        let at = self.pick(rng, |l| {
            let t = l.trim_start();
            t.starts_with("link ") && t.contains(" -> ")
        })?;
        let text = self.lines[at].text.clone();
        let arrow = text.find(" -> ")? + 4;
        let end = text[arrow..]
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .map_or(text.len(), |k| arrow + k);
        let target = text[arrow..end].to_string();
        let broken = format!("{}View{}", &text[..end], &text[end..]);
        self.edit(at, broken);
        self.record(
            at,
            DefectKind::BrokenLink,
            &["E101"],
            format!("a link to `{target}View`, which does not exist"),
        );
        Some(())
    }

    fn orphan_page(&mut self) -> Option<()> {
        let name = self.fresh("OldPromotions");
        let at = self.append(&format!(
            "page {name} {{\n  heading \"Last season's offers\"\n  link \"Home\" -> Home\n}}"
        ));
        self.record(
            at,
            DefectKind::OrphanPage,
            &["S101"],
            format!("page `{name}` that nothing links to"),
        );
        Some(())
    }

    /// Deletes a button that triggers one of the site's own markers.
    fn missing_button(&mut self, rng: &mut Rng) -> Option<()> {
        let at = self.pick(rng, |l| {
            let t = l.trim_start();
            t.starts_with("button ") && (t.contains("-> place_") || t.contains("-> cancel_"))
        })?;
        let text = self.lines[at].text.clone();
        let marker = text
            .split("-> ")
            .nth(1)?
            .split('(')
            .next()?
            .trim()
            .to_string();
        // An element-less line keeps the numbering; the marker stays.
        self.edit(at, String::new());
        let decl = format!("marker {marker}(");
        let anchor = self.lines.iter().position(|l| l.text.starts_with(&decl))?;
        self.record(
            anchor,
            DefectKind::MissingButton,
            &["S102"],
            format!("the button that triggers `{marker}` left out"),
        );
        Some(())
    }

    fn placeholder(&mut self, rng: &mut Rng) -> Option<()> {
        const PLACEHOLDERS: [&str; 5] = [
            "Lorem ipsum dolor sit amet",
            "TODO: describe this page",
            "Sample text",
            "Opening hours TBD",
            "Placeholder for the introduction",
        ];
        let at = self.pick(rng, |l| l.trim_start().starts_with("heading \""))?;
        let indent: String = self.lines[at]
            .text
            .chars()
            .take_while(|c| *c == ' ')
            .collect();
        let words = *rng.pick(&PLACEHOLDERS);
        self.used[at] = true;
        let line = self.insert_after(at, format!("{indent}text \"{words}\""));
        self.record(
            line,
            DefectKind::PlaceholderText,
            &["M203"],
            format!("placeholder text `{words}`"),
        );
        Some(())
    }

    fn negative_price(&mut self, rng: &mut Rng) -> Option<()> {
        let at = self.pick(rng, |l| l.contains("price: $"))?;
        let text = self.lines[at].text.replacen("price: $", "price: -$", 1);
        self.edit(at, text);
        self.record(
            at,
            DefectKind::NegativePrice,
            &["M201"],
            "a negative price in the seed data".into(),
        );
        Some(())
    }

    fn impossible_date(&mut self, rng: &mut Rng) -> Option<()> {
        let at = self.pick(rng, |l| l.contains("day: @2026-"))?;
        let text = self.lines[at].text.clone();
        let k = text.find("day: @2026-")? + "day: @2026-".len();
        let day = *rng.pick(&["02-30", "02-31", "04-31", "06-31", "09-31", "11-31"]);
        let edited = format!("{}{day}{}", &text[..k], &text[k + 5..]);
        self.edit(at, edited);
        self.record(
            at,
            DefectKind::ImpossibleDate,
            &["M202"],
            format!("the date `2026-{day}`"),
        );
        Some(())
    }

    /// A negative stock against the stock invariant, or a hard-coded price
    /// on a thing's page.
    fn contradictory(&mut self, rng: &mut Rng) -> Option<()> {
        if rng.next().is_multiple_of(2) && !self.runnable {
            if let Some(at) = self.pick(rng, |l| l.contains("stock: ") && l.contains("price: ")) {
                let text = self.lines[at].text.clone();
                let k = text.find("stock: ")? + "stock: ".len();
                let end = text[k..].find(',').map(|e| k + e)?;
                self.edit(
                    at,
                    format!("{}-{}{}", &text[..k], rng.range(1, 5), &text[end..]),
                );
                let anchor = self
                    .lines
                    .iter()
                    .position(|l| l.text.starts_with("invariant stock_never_negative"))?;
                self.record(
                    anchor,
                    DefectKind::ContradictoryData,
                    &["C301"],
                    format!("a negative stock on line {}", at + 1),
                );
                return Some(());
            }
        }
        let price = {
            let rows: Vec<&Line> = self
                .lines
                .iter()
                .filter(|l| l.text.contains("price: $"))
                .collect();
            if rows.is_empty() {
                return None;
            }
            let row = rng.pick(&rows);
            let k = row.text.find("price: $")? + "price: ".len();
            let end = row.text[k..].find(',').map(|e| k + e)?;
            row.text[k..end].to_string()
        };
        // After the page line or one of the page's own top-level elements,
        // so that a page can hold several.
        let in_detail = self.page_lines("page Detail(");
        let at = self.pick_among(rng, &in_detail, |l| {
            l.starts_with("page Detail(")
                || l.starts_with("  text \"")
                || l.starts_with("  heading \"")
        })?;
        self.used[at] = true;
        let line = self.insert_after(at, format!("  text \"Special offer: only {price}\""));
        self.record(
            line,
            DefectKind::ContradictoryData,
            &["C303"],
            format!("a hard-coded price `{price}` on the thing's page"),
        );
        Some(())
    }

    fn impossible_task(&mut self, rng: &mut Rng) -> Option<()> {
        let thing = self.table_after("invariant stock_never_negative: all x in ")?;
        let name = self.fresh("extra_task_");
        // Runnable sites get only the kind that adds no instance, so that
        // the share of feasible instances stays the one `block` aims at.
        let variant = if self.runnable { 0 } else { rng.range(0, 2) };
        let (body, code) = match variant {
            0 => (
                format!(
                    "task {name} for x in {thing} where x.price < $0.00 {{\n  say \"Open the page of {{x.name}}\"\n  goal page is Detail(x)\n}}"
                ),
                "F403",
            ),
            1 => {
                let rec = self.table_with_field("day: Date")?;
                (
                    format!(
                        "task {name} {{\n  say \"Make a payment of a million\"\n  goal exists r in {rec}: r.amount > $1000000.00\n}}"
                    ),
                    "F402",
                )
            }
            _ => {
                // The workflow takes at least two actions from a thing's page.
                let req = self.table_with_field("choice: Text")?;
                (
                    format!(
                        "task {name} for x in {thing} where not (exists r in {req}: r.thing == x) limit 1 {{\n  say \"Get {{x.name}}\"\n  goal exists r in {req}: r.thing == x\n  horizon 1\n}}"
                    ),
                    "F401",
                )
            }
        };
        let at = self.append(&body);
        // F402 points at the part of the goal that can never hold.
        let at = if code == "F402" { at + 2 } else { at };
        self.record(
            at,
            DefectKind::ImpossibleTask,
            &[code],
            format!("task `{name}` that cannot be completed ({code})"),
        );
        Some(())
    }

    /// The identifier after `prefix` on the first line starting with it.
    fn table_after(&self, prefix: &str) -> Option<String> {
        let line = self.lines.iter().find(|l| l.text.starts_with(prefix))?;
        let rest = &line.text[prefix.len()..];
        let end = rest
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(rest.len());
        Some(rest[..end].to_string())
    }

    /// The table that declares the field line `field` (`day: Date`).
    fn table_with_field(&self, field: &str) -> Option<String> {
        let at = self
            .lines
            .iter()
            .position(|l| l.text.trim_start().starts_with(field))?;
        let decl = self.lines[..at]
            .iter()
            .rev()
            .find(|l| l.text.starts_with("table "))?;
        let rest = decl.text.strip_prefix("table ")?;
        Some(rest.split_whitespace().next()?.to_string())
    }
}
