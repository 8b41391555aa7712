//! Quick fixes: a diagnostic's [`Fix`] turned into text edits on the source
//! (add a missing permission, remove an unused one, declare a missing page,
//! rewrite another language's spelling).
//! Edits are computed from the AST and the text, never by re-parsing, and a
//! fix whose target cannot be found is simply not offered.

use super::Analysis;
use crate::diagnostics::{Diagnostic, Fix};
use crate::syntax::ast::*;

/// Replace bytes `start..end` of `file` with `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub file: FileId,
    pub start: usize,
    pub end: usize,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CodeAction {
    pub title: String,
    /// The diagnostic it fixes (an index into the compilation's diagnostics).
    pub diagnostic: usize,
    pub edits: Vec<Edit>,
}

impl Analysis {
    /// The fixes for diagnostics of `file` that touch bytes `start..=end`.
    pub fn code_actions(&self, file: FileId, start: usize, end: usize) -> Vec<CodeAction> {
        self.compilation
            .diagnostics
            .iter()
            .enumerate()
            .filter(|(_, d)| d.span.file == file)
            .filter(|(_, d)| (d.span.start as usize) <= end && start <= d.span.end as usize)
            .filter_map(|(i, d)| {
                let (title, edits) = self.fix_edits(d)?;
                Some(CodeAction {
                    title,
                    diagnostic: i,
                    edits,
                })
            })
            .collect()
    }

    /// The title and text edits of `d`'s fix, when it has one whose target
    /// can be found.
    pub fn fix_edits(&self, d: &Diagnostic) -> Option<(String, Vec<Edit>)> {
        match d.fix.as_ref()? {
            Fix::AddPermission {
                marker,
                clause,
                item,
            } => {
                let edit = self.add_permission(marker, clause, item)?;
                Some((
                    format!("Add `{item}` to `{clause}` of `{marker}`"),
                    vec![edit],
                ))
            }
            Fix::RemovePermission {
                marker,
                clause,
                item,
            } => {
                let edit = self.remove_permission(marker, clause, d.span)?;
                Some((
                    format!("Remove `{item}` from `{clause}` of `{marker}`"),
                    vec![edit],
                ))
            }
            Fix::CreatePage { name } => {
                let edit = self.create_page(name, d.span)?;
                Some((format!("Create page `{name}`"), vec![edit]))
            }
            Fix::Replace { start, end, text } => {
                let edit = Edit {
                    file: d.span.file,
                    start: *start as usize,
                    end: *end as usize,
                    text: text.clone(),
                };
                let title = if text.trim().is_empty() {
                    let old = self.text(d.span.file).get(edit.start..edit.end);
                    format!("Remove `{}`", old.unwrap_or_default())
                } else {
                    format!("Write `{}` instead", text.trim())
                };
                Some((title, vec![edit]))
            }
        }
    }

    fn add_permission(&self, marker: &str, clause: &str, item: &str) -> Option<Edit> {
        let m = self.marker(marker)?;
        let perms = if clause == "reads" {
            &m.reads
        } else {
            &m.writes
        };
        let file = m.name.span.file;
        if let Some(last) = perms.last() {
            return Some(Edit {
                file,
                start: last.span.end as usize,
                end: last.span.end as usize,
                text: format!(", {item}"),
            });
        }
        // A new clause on its own line under the marker's header, where the
        // other clauses are written.
        let text = self.text(file);
        let after = header_end(text, m);
        Some(Edit {
            file,
            start: after,
            end: after,
            text: format!("\n  {clause:<8} {item}"),
        })
    }

    fn remove_permission(&self, marker: &str, clause: &str, at: Span) -> Option<Edit> {
        let m = self.marker(marker)?;
        let perms = if clause == "reads" {
            &m.reads
        } else {
            &m.writes
        };
        let k = perms.iter().position(|p| p.span.start == at.start)?;
        let file = at.file;
        let (start, end) = if perms.len() > 1 {
            if k == 0 {
                (perms[0].span.start, perms[1].span.start)
            } else {
                (perms[k - 1].span.end, perms[k].span.end)
            }
        } else {
            // The only permission: the whole clause goes, and its line with
            // it when nothing else is on it.
            let text = self.text(file);
            let keyword = text[..at.start as usize].rfind(clause)? as u32;
            let line_start = text[..keyword as usize].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[at.end as usize..]
                .find('\n')
                .map_or(text.len(), |i| at.end as usize + i);
            let alone = text[line_start..keyword as usize].trim().is_empty()
                && text[at.end as usize..line_end].trim().is_empty();
            if alone && line_start > 0 {
                ((line_start - 1) as u32, line_end as u32)
            } else {
                (keyword, at.end)
            }
        };
        Some(Edit {
            file,
            start: start as usize,
            end: end as usize,
            text: String::new(),
        })
    }

    fn create_page(&self, name: &str, at: Span) -> Option<Edit> {
        let target = self.index.page_refs.iter().find(|r| r.name == at)?;
        let typed = &self.compilation.typed;
        let params: Vec<String> = target
            .args
            .iter()
            .enumerate()
            .map(|(i, (written, id))| {
                let pname = written.clone().unwrap_or_else(|| format!("p{}", i + 1));
                format!("{pname}: {}", typed.ty(*id))
            })
            .collect();
        let params = if params.is_empty() {
            String::new()
        } else {
            format!("({})", params.join(", "))
        };
        let text = self.text(at.file);
        let sep = if text.ends_with('\n') { "\n" } else { "\n\n" };
        // A way back to the start keeps the new page from being a dead end
        // (S103), when the start page takes no arguments.
        let back = match self.start_page() {
            Some(start) if start != name => format!("  link \"Home\" -> {start}\n"),
            _ => String::new(),
        };
        Some(Edit {
            file: at.file,
            start: text.len(),
            end: text.len(),
            text: format!(
                "{sep}page {name}{params} {{\n  title \"{name}\"\n  heading \"{name}\"\n{back}}}\n"
            ),
        })
    }

    /// The site's start page, when it is named without arguments.
    fn start_page(&self) -> Option<&str> {
        self.compilation
            .files
            .iter()
            .flat_map(|f| &f.decls)
            .find_map(|d| match &d.kind {
                DeclKind::Site(site) => site.start.as_ref(),
                _ => None,
            })
            .filter(|start| start.args.is_empty())
            .map(|start| start.name.name.as_str())
    }
}

/// Where a marker's header (name and parameters) ends.
fn header_end(text: &str, m: &MarkerDecl) -> usize {
    let after_name = m.name.span.end as usize;
    let rest = &text[after_name..];
    if rest.trim_start().starts_with('(') {
        if let Some(close) = rest.find(')') {
            return after_name + close + 1;
        }
    }
    after_name
}
