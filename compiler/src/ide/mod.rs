//! Editor features as plain functions over one compilation: diagnostics,
//! hover, go to definition, find references, completion, document symbols
//! and quick fixes. Offsets in and spans out are bytes; [`lines`] converts to
//! the editor's UTF-16 positions. Nothing here speaks the language server
//! protocol (that is `wsitec lsp`, in the binary) or touches a file, so every
//! feature is tested on source text alone.
//!
//! A file that does not parse still has a partial AST (the parser recovers
//! per line), so features keep working on what was understood.

pub mod actions;
pub mod completion;
pub mod index;
pub mod lines;
pub mod symbols;

use crate::check::effects::marker_accesses;
use crate::syntax::ast::{DeclKind, FileId, MarkerDecl, Permission, Span, UseTarget};
use crate::Compilation;
use index::{contains, Index, Key};

/// One compilation, its index, and where each file's lines start.
pub struct Analysis {
    pub compilation: Compilation,
    pub index: Index,
    line_starts: Vec<Vec<usize>>,
}

/// What hovering over a place shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Hover {
    pub span: Span,
    /// Markdown.
    pub contents: String,
}

impl Analysis {
    pub fn new(compilation: Compilation) -> Analysis {
        let index = Index::build(&compilation.files, &compilation.typed);
        let line_starts = compilation
            .sources
            .iter()
            .map(|s| lines::line_starts(&s.text))
            .collect();
        Analysis {
            compilation,
            index,
            line_starts,
        }
    }

    /// Offsets ↔ positions in `file`, without rescanning its text.
    pub fn lines(&self, file: FileId) -> lines::LineIndex<'_> {
        match self.line_starts.get(file.0 as usize) {
            Some(starts) => lines::LineIndex::with_starts(self.text(file), starts),
            None => lines::LineIndex::new(""),
        }
    }

    /// The text of `file` (empty for an unknown file).
    pub fn text(&self, file: FileId) -> &str {
        self.compilation
            .sources
            .get(file.0 as usize)
            .map_or("", |s| s.text.as_str())
    }

    pub fn hover(&self, file: FileId, offset: usize) -> Option<Hover> {
        if let Some(occ) = self.index.at(file, offset) {
            let def = self.index.def(&occ.key)?;
            let mut contents = format!("```wsite\n{}\n```", def.signature);
            if let Some(module) = self.std_module(def.span) {
                contents.push_str(&format!("\n\nfrom `{module}`"));
            }
            if let Some(doc) = &def.doc {
                contents.push_str("\n\n");
                contents.push_str(doc);
            }
            if let Some(extra) = self.details(&occ.key) {
                contents.push_str("\n\n");
                contents.push_str(&extra);
            }
            return Some(Hover {
                span: occ.span,
                contents,
            });
        }
        if let Some(hover) = self.builtin_hover(file, offset) {
            return Some(hover);
        }
        // Not on a name: the type of the narrowest expression under the cursor.
        let (span, id) = self
            .index
            .exprs
            .iter()
            .filter(|(s, _)| s.file == file && contains(*s, offset))
            .min_by_key(|(s, _)| s.end - s.start)?;
        let ty = self.compilation.typed.types.get(id)?;
        Some(Hover {
            span: *span,
            contents: format!("```wsite\n{ty}\n```"),
        })
    }

    /// On the name of a built-in function being called (`left(` ...): its
    /// signature and what it does.
    fn builtin_hover(&self, file: FileId, offset: usize) -> Option<Hover> {
        let text = self.text(file);
        let is_word = |c: char| c.is_alphanumeric() || c == '_';
        let offset = offset.min(text.len());
        let start = text
            .get(..offset)?
            .rfind(|c| !is_word(c))
            .map_or(0, |i| i + 1);
        let end = text
            .get(offset..)?
            .find(|c| !is_word(c))
            .map_or(text.len(), |i| offset + i);
        let word = text.get(start..end)?;
        if !text.get(end..)?.trim_start().starts_with('(') {
            return None;
        }
        let b = crate::check::types::builtin_docs()
            .into_iter()
            .find(|b| b.name == word)?;
        Some(Hover {
            span: Span::new(file, start, end),
            contents: format!("```wsite\n{}\n```\n\n{}", b.signature, b.doc),
        })
    }

    /// What a hover adds for markers (permissions against accesses) and
    /// tasks (the prover's verdicts).
    fn details(&self, key: &Key) -> Option<String> {
        match key {
            Key::Marker(name) => self.marker(name).map(|m| self.marker_details(m)),
            Key::Task(name) => Some(self.task_details(name)),
            _ => None,
        }
    }

    /// The marker declared as `name`.
    pub(crate) fn marker(&self, name: &str) -> Option<&MarkerDecl> {
        self.compilation
            .files
            .iter()
            .flat_map(|f| &f.decls)
            .find_map(|d| match &d.kind {
                DeclKind::Marker(m) if m.name.name == name => Some(m),
                _ => None,
            })
    }

    fn marker_details(&self, m: &MarkerDecl) -> String {
        let list = |items: Vec<String>| {
            if items.is_empty() {
                "nothing".to_string()
            } else {
                items
                    .iter()
                    .map(|i| format!("`{i}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        let written = |ps: &[Permission]| {
            ps.iter()
                .map(|p| match &p.field {
                    Some(f) => format!("{}.{}", p.base.name, f.name),
                    None => p.base.name.clone(),
                })
                .collect::<Vec<_>>()
        };
        let used = marker_accesses(m, &self.compilation.typed);
        format!(
            "declared: reads {}; writes {}\n\ninferred: reads {}; writes {}",
            list(written(&m.reads)),
            list(written(&m.writes)),
            list(used.reads.into_iter().collect()),
            list(used.writes.into_iter().collect()),
        )
    }

    fn task_details(&self, name: &str) -> String {
        let outcomes: Vec<_> = self
            .compilation
            .proofs
            .iter()
            .filter(|p| p.task == name)
            .collect();
        if outcomes.is_empty() {
            return "not proven yet: the prover runs when the file is saved and checks clean"
                .into();
        }
        outcomes
            .iter()
            .map(|p| {
                let verdict = p.verdict.as_str();
                let how = if p.witness.is_empty() {
                    p.reason.clone().unwrap_or_default()
                } else {
                    format!("shortest witness: {} steps", p.witness.len())
                };
                format!(
                    "- `{}`: **{verdict}** ({how}; {} states explored)",
                    p.instance, p.states
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Where the name at `offset` is declared.
    pub fn definition(&self, file: FileId, offset: usize) -> Option<Span> {
        let occ = self.index.at(file, offset)?;
        self.index.def(&occ.key).map(|d| d.span)
    }

    /// The standard-library module (`std::search`) that holds `span`, if any.
    pub fn std_module(&self, span: Span) -> Option<&str> {
        let name = &self.compilation.sources.get(span.file.0 as usize)?.name;
        name.starts_with("std::").then_some(name.as_str())
    }

    /// Where an editor can show `span`: itself, or, inside a standard-library
    /// module (compiled into wsitec, not a file an editor can open), the
    /// `use` in `file` that brings the module in.
    pub fn visible_span(&self, file: FileId, span: Span) -> Option<Span> {
        let Some(module) = self.std_module(span) else {
            return Some(span);
        };
        self.compilation
            .files
            .iter()
            .find(|f| f.file == file)?
            .decls
            .iter()
            .find_map(|d| match &d.kind {
                DeclKind::Use(u) => match &u.target {
                    UseTarget::Std(path) => {
                        let named: Vec<&str> = path.iter().map(|p| p.name.as_str()).collect();
                        (format!("std::{}", named.join("::")) == module).then_some(d.span)
                    }
                    UseTarget::File(..) => None,
                },
                _ => None,
            })
    }

    /// Every place the name at `offset` is written, its declaration included
    /// when `with_declaration`.
    pub fn references(&self, file: FileId, offset: usize, with_declaration: bool) -> Vec<Span> {
        let Some(occ) = self.index.at(file, offset) else {
            return Vec::new();
        };
        let decl = self.index.def(&occ.key).map(|d| d.span);
        self.index
            .references(&occ.key)
            .into_iter()
            .filter(|s| with_declaration || Some(*s) != decl)
            .collect()
    }
}

#[cfg(test)]
mod tests;
