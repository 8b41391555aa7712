//! Literal bodies: integers, money, dates, times and text with escapes and
//! interpolations. Range errors become E003, impossible dates M202, and an
//! unterminated string E002.

use super::*;

impl<'t> Walker<'t, '_> {
    pub(super) fn int_value(&mut self, pair: &P<'t>) -> Option<i64> {
        let digits: String = pair.as_str().chars().filter(|c| *c != '_').collect();
        match digits.parse::<i64>() {
            Ok(v) => Some(v),
            Err(_) => {
                self.diags.push(
                    Diagnostic::new(
                        Code::E003,
                        self.span(pair),
                        format!("`{}` does not fit in a 64-bit integer", pair.as_str()),
                    )
                    .help("integers range from -9223372036854775808 to 9223372036854775807"),
                );
                None
            }
        }
    }

    pub(super) fn money(&mut self, pair: &P<'t>) -> ExprKind {
        match Money::parse_body(pair.as_str().get(1..).unwrap_or("")) {
            Ok(m) => ExprKind::Money(m.0),
            Err(e) => {
                let help = match &e {
                    LiteralError::Malformed(m) if m.contains("too large") => {
                        "amounts are stored in 64-bit cents: at most $92,233,720,368,547,758.07"
                    }
                    _ => "write money with at most two decimals, like `$14.99`",
                };
                self.literal_error(pair, e, help)
            }
        }
    }

    pub(super) fn date(&mut self, pair: &P<'t>) -> ExprKind {
        match Date::parse_body(pair.as_str().get(1..).unwrap_or("")) {
            Ok(d) => ExprKind::Date(d),
            Err(e) => self.literal_error(
                pair,
                e,
                "write a date as `@YYYY-MM-DD`, for example `@2026-11-29`",
            ),
        }
    }

    pub(super) fn time(&mut self, pair: &P<'t>) -> ExprKind {
        match Time::parse_body(pair.as_str().get(1..).unwrap_or("")) {
            Ok(t) => ExprKind::Time(t),
            Err(e) => self.literal_error(
                pair,
                e,
                "write a time of day as `@HH:MM`, from `@00:00` to `@23:59`",
            ),
        }
    }

    pub(super) fn literal_error(
        &mut self,
        pair: &P<'t>,
        err: LiteralError,
        help: &str,
    ) -> ExprKind {
        let span = self.span(pair);
        let diag = match err {
            LiteralError::Malformed(msg) => {
                Diagnostic::new(Code::E003, span, format!("malformed literal: {msg}")).help(help)
            }
            LiteralError::ImpossibleDate(msg) => {
                Diagnostic::new(Code::M202, span, format!("impossible date: {msg}"))
                    .help("pick a day that exists in that month")
            }
        };
        self.diags.push(diag);
        ExprKind::Error
    }

    pub(super) fn text_lit(&mut self, pair: P<'t>) -> TextLit {
        let span = self.span(&pair);
        let mut parts: Vec<TextPart> = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::text_chars => push_lit(&mut parts, p.as_str()),
                Rule::escape => {
                    let unescaped = self.escape(&p);
                    push_lit(&mut parts, &unescaped);
                }
                Rule::interp => {
                    let e = self.expr_opt(p.into_inner().next(), span);
                    parts.push(TextPart::Interp(e));
                }
                Rule::unterminated => self.diags.push(
                    Diagnostic::new(Code::E002, span, "unterminated string")
                        .label("this string has no closing `\"` on its line")
                        .help("close the string on the same line; write `\\n` for a line break inside it"),
                ),
                _ => {}
            }
        }
        TextLit { parts, span }
    }

    pub(super) fn escape(&mut self, pair: &P<'t>) -> String {
        match pair.as_str() {
            "\\\"" => "\"".into(),
            "\\\\" => "\\".into(),
            "\\n" => "\n".into(),
            "\\{" => "{".into(),
            "\\}" => "}".into(),
            other => {
                self.diags.push(
                    Diagnostic::new(
                        Code::E003,
                        self.span(pair),
                        format!("unknown escape `{other}`"),
                    )
                    .help("the escapes are `\\\"`, `\\\\`, `\\n`, `\\{` and `\\}`"),
                );
                other.get(1..).unwrap_or("").to_string()
            }
        }
    }
}

pub(super) fn push_lit(parts: &mut Vec<TextPart>, s: &str) {
    if let Some(TextPart::Lit(last)) = parts.last_mut() {
        last.push_str(s);
    } else {
        parts.push(TextPart::Lit(s.to_string()));
    }
}
