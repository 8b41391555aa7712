//! Renders diagnostics for people with codespan-reporting: the source line, a
//! caret under the span, labels on related spans, and the help text.

use super::{Diagnostic, Severity};
use crate::Source;
use codespan_reporting::diagnostic::{
    Diagnostic as Report, Label as ReportLabel, Severity as ReportSeverity,
};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config};

/// The files diagnostics point into, in the form codespan wants.
pub struct SourceDb<'a> {
    files: SimpleFiles<&'a str, &'a str>,
}

impl<'a> SourceDb<'a> {
    pub fn new(sources: &'a [Source]) -> SourceDb<'a> {
        let mut files = SimpleFiles::new();
        for s in sources {
            files.add(s.name.as_str(), s.text.as_str());
        }
        SourceDb { files }
    }

    fn report(&self, d: &Diagnostic) -> Report<usize> {
        let severity = match d.severity() {
            Severity::Error => ReportSeverity::Error,
            Severity::Warning => ReportSeverity::Warning,
            Severity::Info => ReportSeverity::Note,
        };
        let mut labels = vec![
            ReportLabel::primary(d.span.file.0 as usize, d.span.range()).with_message(&d.label)
        ];
        labels.extend(d.related.iter().map(|l| {
            ReportLabel::secondary(l.span.file.0 as usize, l.span.range()).with_message(&l.message)
        }));
        let notes = d.help.iter().map(|h| format!("help: {h}")).collect();
        Report::new(severity)
            .with_code(d.code.as_str())
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(notes)
    }

    /// Plain text, no colour: what snapshots and pipes get.
    pub fn render_plain(&self, diags: &[Diagnostic]) -> String {
        let config = Config::default();
        let mut out = String::new();
        for d in diags {
            // A span that no longer fits its file (never expected) falls back to
            // a one-line rendering instead of failing the whole report.
            if term::emit_to_string(&mut out, &config, &self.files, &self.report(d)).is_err() {
                out.push_str(&format!(
                    "{}[{}]: {}\n",
                    d.severity().as_str(),
                    d.code,
                    d.message
                ));
            }
        }
        out
    }

    /// Coloured output on a terminal writer.
    pub fn render_color(&self, diags: &[Diagnostic], writer: &mut dyn term::termcolor::WriteColor) {
        let config = Config::default();
        for d in diags {
            if term::emit_to_write_style(writer, &config, &self.files, &self.report(d)).is_err() {
                let _ = writeln!(
                    writer,
                    "{}[{}]: {}",
                    d.severity().as_str(),
                    d.code,
                    d.message
                );
            }
        }
    }
}

/// "2 errors, 1 warning" (or "no problems").
pub fn summary(diags: &[Diagnostic]) -> String {
    let errors = diags
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .count();
    let warnings = diags
        .iter()
        .filter(|d| d.severity() == Severity::Warning)
        .count();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (0, 0) => "no problems".to_string(),
        (e, 0) => plural(e, "error"),
        (0, w) => plural(w, "warning"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}
