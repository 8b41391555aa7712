//! Syntax errors: turning pest's failures and the grammar's recovery chunks
//! into E001 diagnostics that say what was expected and what was found.

use super::*;
use crate::syntax::foreign::{hint, ErrorSite, Hint};

impl<'t> Walker<'t, '_> {
    /// Turns a pest error from a parse that began at `base` into an E001.
    ///
    /// pest's own position is that of the last *rule* it tried, which after a
    /// complete string is the string's insides. With error detail on it also
    /// tracks literal tokens (`:`, `->`, `}`), and the farthest of those is where
    /// the input really went wrong.
    pub(super) fn pest_error(&self, err: pest::error::Error<Rule>, base: usize) -> Diagnostic {
        use pest::error::{ErrorVariant, InputLocation};
        let rule_pos = match err.location {
            InputLocation::Pos(p) => p,
            InputLocation::Span((p, _)) => p,
        };
        let positives: Vec<Rule> = match &err.variant {
            ErrorVariant::ParsingError { positives, .. } => positives.clone(),
            ErrorVariant::CustomError { .. } => Vec::new(),
        };
        let positives: Vec<Rule> = positives
            .into_iter()
            .filter(|r| !is_text_inner(*r))
            .collect();
        let (pos, mut labels) = (rule_pos, describe_rules(&positives));
        let (pos, labels) = match err.parse_attempts() {
            Some(attempts) if attempts.max_position > pos => (
                attempts.max_position,
                token_labels(&attempts.expected_tokens()),
            ),
            Some(attempts) if attempts.max_position == pos => {
                labels.extend(token_labels(&attempts.expected_tokens()));
                (pos, labels)
            }
            _ => (pos, labels),
        };
        self.unexpected_at(base + pos, &join_labels(labels))
    }

    /// E001 "expected X, found Y" pointing at the token at `pos`.
    pub(super) fn unexpected_at(&self, pos: usize, expected: &str) -> Diagnostic {
        let (start, end, found) = token_at(self.text, pos);
        let message = if expected.is_empty() {
            format!("unexpected {found}")
        } else {
            format!("expected {expected}, found {found}")
        };
        let help = if found == "end of file" {
            "the file ends too early: finish or close what is still open".to_string()
        } else if is_single_token(expected) {
            format!("write {expected} here")
        } else {
            format!(
                "rewrite or remove {found}; docs/language.md shows the syntax of each construct"
            )
        };
        Diagnostic::new(Code::E001, Span::new(self.file, start, end), message)
            .label("unexpected here")
            .help(help)
    }

    /// A recovery chunk: re-parse it with `rule` to learn what was expected.
    pub(super) fn bad_chunk(&mut self, pair: &P<'t>, rule: Option<Rule>, what: &str) {
        let start = pair.as_span().start();
        let sub = self.text.get(start..).unwrap_or("");
        // Only reached inside `parse_file`, which holds `DETAIL_SWITCH`.
        pest::set_error_detail(true);
        let reparsed = rule.map(|r| WsiteParser::parse(r, sub));
        pest::set_error_detail(false);
        let diag = match reparsed {
            Some(Err(err)) => self.pest_error(err, start),
            _ => self.unexpected_at(start, what),
        };
        if let Some(hint) = self.foreign_hint(&diag, pair, rule) {
            let diag = diag.help(hint.help);
            self.diags.push(match hint.fix {
                Some(fix) => diag.fix(fix),
                None => diag,
            });
            return;
        }
        // Where the parser only knows the line is wrong, say what belongs there.
        let vague = diag
            .help
            .as_deref()
            .is_some_and(|h| h.starts_with("rewrite or remove"));
        let diag = if vague && !what.is_empty() {
            let found = diag
                .message
                .rsplit("found ")
                .next()
                .unwrap_or("it")
                .to_string();
            diag.help(format!(
                "this line should be {what}; rewrite or remove {found}"
            ))
        } else {
            diag
        };
        self.diags.push(diag);
    }

    /// A help (and fix) for syntax borrowed from another language at `diag`.
    fn foreign_hint(&self, diag: &Diagnostic, chunk: &P<'t>, rule: Option<Rule>) -> Option<Hint> {
        let expected = diag.message.strip_prefix("expected ").unwrap_or("");
        let expected = expected
            .rsplit_once(", found ")
            .map_or(expected, |(e, _)| e);
        let span = chunk.as_span();
        hint(&ErrorSite {
            text: self.text,
            pos: diag.span.start as usize,
            expected,
            chunk: Some((span.start(), span.end())),
            statement: rule == Some(Rule::stmt_only),
        })
    }

    /// `missing_close`: a block ran into the next declaration or the file's end.
    pub(super) fn missing_close(
        &mut self,
        pair: &P<'t>,
        closer: &str,
        owner: &str,
        owner_span: Span,
    ) {
        let pos = pair.as_span().start();
        let (start, end, found) = token_at(self.text, pos);
        self.diags.push(
            Diagnostic::new(
                Code::E001,
                Span::new(self.file, start, end),
                format!("expected `{closer}`, found {found}"),
            )
            .label(format!("`{owner}` is not closed before this"))
            .related(owner_span, format!("`{owner}` starts here"))
            .help(format!("add `{closer}` at the end of `{owner}`")),
        );
    }

    pub(super) fn check_close(
        &mut self,
        pair: &P<'t>,
        closer: &str,
        owner: &str,
        owner_span: Span,
    ) {
        if let Some(inner) = pair.clone().into_inner().next() {
            if inner.as_rule() == Rule::missing_close {
                self.missing_close(&inner, closer, owner, owner_span);
            }
        }
    }
}

/// The token at `pos` (after whitespace): its range and a description.
pub(super) fn token_at(text: &str, pos: usize) -> (usize, usize, String) {
    let rest = text.get(pos..).unwrap_or("");
    let skipped = rest.len() - rest.trim_start().len();
    let start = pos + skipped;
    let rest = rest.trim_start();
    let Some(first) = rest.chars().next() else {
        return (text.len(), text.len(), "end of file".to_string());
    };
    let len = if first.is_alphanumeric() || first == '_' {
        rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())
    } else if first == '"' {
        return (start, start + 1, "`\"`".to_string());
    } else {
        first.len_utf8()
    };
    let token = rest.get(..len).unwrap_or("");
    (start, start + len, format!("`{token}`"))
}

/// Whether `expected` names exactly one literal token, like "`:`".
fn is_single_token(expected: &str) -> bool {
    expected.starts_with('`') && expected.ends_with('`') && expected.matches('`').count() == 2
}

/// Labels for pest's expected rules, without repeats.
pub(super) fn describe_rules(rules: &[Rule]) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for rule in rules {
        let label = describe_rule(*rule);
        if !label.is_empty() && !labels.iter().any(|l| l == label) {
            labels.push(label.to_string());
        }
    }
    labels
}

/// Labels for literal tokens pest expected (`:`, `->`), skipping layout and
/// character ranges (pest does not export its token type, only its `Display`).
pub(super) fn token_labels<T: std::fmt::Display>(tokens: &[T]) -> Vec<String> {
    tokens
        .iter()
        .map(|t| t.to_string())
        .filter(|t| {
            !t.trim().is_empty()
                && t != "//"
                && !t.contains("..")
                && t.chars().all(|c| !c.is_alphanumeric())
        })
        .map(|t| format!("`{t}`"))
        .collect()
}

/// "`}`, a name or an expression".
pub(super) fn join_labels(mut labels: Vec<String>) -> String {
    // The characters that can start an expression say nothing "an expression"
    // does not already say.
    if labels.iter().any(|l| l == "an expression") {
        labels.retain(|l| !["`\"`", "`$`", "`(`", "`-`", "`@`", "`[`"].contains(&l.as_str()));
    }
    // Operators all continue an expression; naming each one buries the token
    // that would have ended it.
    for l in labels.iter_mut() {
        const OPERATORS: [&str; 18] = [
            "`and`", "`or`", "`in`", "`is`", "`not`", "`.`", "`[`", "`==`", "`!=`", "`<=`", "`>=`",
            "`<`", "`>`", "`+`", "`-`", "`*`", "`/`", "`%`",
        ];
        if OPERATORS.contains(&l.as_str()) {
            *l = "an operator".to_string();
        }
    }
    // Closing tokens first: a missing `)` or `,` is the likeliest fix.
    labels.sort_by_key(|l| !["`)`", "`]`", "`}`", "`,`"].contains(&l.as_str()));
    let mut seen = Vec::new();
    labels.retain(|l| {
        let new = !seen.contains(l);
        seen.push(l.clone());
        new
    });
    match labels.len() {
        0 => String::new(),
        1 => labels.remove(0),
        n if n > 6 => format!("{}, or another item", labels[..5].join(", ")),
        n => format!("{} or {}", labels[..n - 1].join(", "), labels[n - 1]),
    }
}

pub(super) fn is_text_inner(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::text_chars | Rule::escape | Rule::interp | Rule::unterminated
    )
}

pub(super) fn describe_rule(rule: Rule) -> &'static str {
    use Rule::*;
    match rule {
        ident => "a name",
        el_name => "`#name`",
        int_lit => "an integer",
        text_lit => "a string",
        expr | postfix_expr | paren | neg => "an expression",
        money_lit | date_lit | time_lit | bad_at_lit | bad_decimal | k_true | k_false | k_none
        | list_lit | quantifier | count_expr | agg_expr | find_expr | visited_expr
        | page_is_expr | call => "an expression",
        type_expr => "a type",
        page_ref => "a page",
        arg_list | param_list => "`(`",
        infix_op => "an operator",
        field_access => "`.`",
        index => "`[`",
        arrow => "`->`",
        opt_mark => "`?`",
        close_brace => "`}`",
        close_bracket => "`]`",
        element | element_only | title_el | heading_el | text_el | image_el | link_el
        | button_el | input_el | select_el | checkbox_el | section_el | for_el | if_el | let_el
        | stmt_el => "an element (`text`, `link`, `button`, ...)",
        stmt | stmt_only | let_stmt | insert_stmt | set_stmt | delete_all_stmt | delete_stmt
        | for_stmt | if_stmt | reject_stmt | go_stmt => "a statement",
        decl | decl_only | use_decl | site_decl | enum_decl | table_decl | seed_decl
        | session_decl | invariant_decl | page_decl | marker_decl | task_decl => {
            "a declaration (`site`, `table`, `page`, `marker`, `task`, ...)"
        }
        module_header => "`module`",
        task_item | say_item | start_item | horizon_item | goal_item | answer_item
        | progress_item | key_item | values_item | setup_item => "a task item",
        site_item | site_title | site_domain | site_start | site_today => "a site item",
        field_decl => "a field",
        field_init => "a field like `name: value`",
        seed_row => "a row `{ ... }`",
        session_var => "a session variable",
        permission => "a permission like `Table` or `Table.field`",
        reads_clause => "`reads`",
        writes_clause => "`writes`",
        requires_clause => "`requires`",
        disabled_when => "`disabled when`",
        where_clause => "`where`",
        order_clause => "`order by`",
        limit_clause => "`limit`",
        offset_clause => "`offset`",
        page_guard => "`guard`",
        select_from => "`from`",
        page_route => "`at`",
        table_max => "`max`",
        progress_entry => "a progress predicate",
        key_node => "a key node",
        task_template => "`for`",
        use_binds | use_bind => "`(`",
        std_path => "`std::...`",
        module_param => "a module parameter",
        stmts | elements => "",
        EOI => "end of file",
        k_and => "`and`",
        k_or => "`or`",
        k_not => "`not`",
        k_in => "`in`",
        k_is => "`is`",
        k_exists => "`exists`",
        k_all => "`all`",
        k_if => "`if`",
        k_else => "`else`",
        k_for => "`for`",
        k_where => "`where`",
        k_let => "`let`",
        k_set => "`set`",
        k_insert => "`insert`",
        k_delete => "`delete`",
        k_go => "`go`",
        k_title => "`title`",
        k_domain => "`domain`",
        k_start => "`start`",
        k_today => "`today`",
        k_table => "`table`",
        k_max | k_max_agg => "`max`",
        k_at => "`at`",
        k_from => "`from`",
        k_show => "`show`",
        k_order => "`order`",
        k_by => "`by`",
        k_desc => "`desc`",
        k_limit => "`limit`",
        k_offset => "`offset`",
        k_guard => "`guard`",
        k_disabled => "`disabled`",
        k_when => "`when`",
        k_marker => "`marker`",
        k_reads => "`reads`",
        k_writes => "`writes`",
        k_requires => "`requires`",
        k_default => "`default`",
        k_reject => "`reject`",
        k_std => "`std`",
        k_visited => "`visited`",
        _ => "",
    }
}

/// The keyword that opens a construct, for messages about it.
pub(super) fn rule_owner(rule: Rule) -> &'static str {
    match rule {
        Rule::section_el => "section",
        Rule::for_el => "for",
        Rule::if_el => "if",
        Rule::say_item => "say",
        Rule::start_item => "start",
        Rule::horizon_item => "horizon",
        Rule::goal_item => "goal",
        Rule::answer_item => "answer",
        Rule::progress_item => "progress",
        Rule::key_item => "key",
        Rule::values_item => "values",
        Rule::setup_item => "setup",
        _ => "block",
    }
}
