//! Walking top-level declarations: modules, `use`, the site, enums, tables,
//! seed rows, session variables and invariants.

use super::*;

impl<'t> Walker<'t, '_> {
    pub(super) fn file(&mut self, root: P<'t>) -> SourceFile {
        let mut out = SourceFile {
            file: self.file,
            module: None,
            decls: Vec::new(),
        };
        for pair in root.into_inner() {
            match pair.as_rule() {
                Rule::module_header => out.module = Some(self.module_header(pair)),
                Rule::decl => {
                    if let Some(d) = self.decl(pair) {
                        out.decls.push(d);
                    }
                }
                Rule::bad_top => self.bad_chunk(&pair, Some(Rule::decl_only), "a declaration"),
                Rule::broken_decl => {
                    self.bad_chunk(&pair, Some(Rule::decl_only), "a declaration");
                    out.decls.extend(self.broken_decl(pair));
                }
                _ => {}
            }
        }
        out
    }

    /// A page or marker that broke after its header: declared with what the
    /// header says and an empty body (the syntax error is reported), so that
    /// its uses resolve rather than each adding an E101.
    fn broken_decl(&mut self, pair: P<'t>) -> Option<Decl> {
        let span = self.span(&pair);
        let doc = self.doc_above(span.start as usize);
        let header = pair.into_inner().next()?;
        let kind = match header.as_rule() {
            Rule::marker_header => {
                let (mut marker, _) = self.marker_parts(header);
                // A `requires` cut short by the error would be checked as if
                // it were the whole condition.
                marker.requires.clear();
                DeclKind::Marker(marker)
            }
            Rule::page_header => DeclKind::Page(self.page_decl(header)),
            _ => return None,
        };
        Some(Decl { doc, kind, span })
    }

    pub(super) fn module_header(&mut self, pair: P<'t>) -> ModuleHeader {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().filter(|p| p.as_rule() != Rule::k_module);
        let name = self.ident_or(inner.next(), span);
        let params = inner
            .filter(|p| p.as_rule() == Rule::module_param)
            .map(|p| {
                let mut parts = p.into_inner();
                let name = self.ident_or(parts.next(), span);
                let fields = parts
                    .filter(|f| f.as_rule() == Rule::field_decl)
                    .map(|f| self.field_decl(f))
                    .collect();
                ModuleParam { name, fields }
            })
            .collect();
        ModuleHeader { name, params, span }
    }

    pub(super) fn decl(&mut self, pair: P<'t>) -> Option<Decl> {
        let span = self.span(&pair);
        let doc = self.doc_above(span.start as usize);
        let inner = pair.into_inner().next()?;
        let kind = match inner.as_rule() {
            Rule::use_decl => DeclKind::Use(self.use_decl(inner)),
            Rule::site_decl => DeclKind::Site(self.site_decl(inner)),
            Rule::enum_decl => DeclKind::Enum(self.enum_decl(inner)),
            Rule::table_decl => DeclKind::Table(self.table_decl(inner)),
            Rule::seed_decl => DeclKind::Seed(self.seed_decl(inner)),
            Rule::session_decl => DeclKind::Session(self.session_decl(inner)),
            Rule::invariant_decl => DeclKind::Invariant(self.invariant_decl(inner)),
            Rule::page_decl => DeclKind::Page(self.page_decl(inner)),
            Rule::marker_decl => DeclKind::Marker(self.marker_decl(inner)),
            Rule::task_decl => DeclKind::Task(self.task_decl(inner)),
            _ => return None,
        };
        Some(Decl { doc, kind, span })
    }

    pub(super) fn use_decl(&mut self, pair: P<'t>) -> UseDecl {
        let mut target = UseTarget::Std(Vec::new());
        let mut bindings = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::std_path => {
                    target = UseTarget::Std(
                        p.into_inner()
                            .filter(|x| x.as_rule() == Rule::ident)
                            .map(|x| self.ident(&x))
                            .collect(),
                    )
                }
                Rule::text_lit => {
                    let lit = self.text_lit(p);
                    target = UseTarget::File(lit.plain(), lit.span);
                }
                Rule::use_binds => {
                    for b in p.into_inner() {
                        let mut parts = b.into_inner();
                        if let (Some(a), Some(t)) = (parts.next(), parts.next()) {
                            bindings.push((self.ident(&a), self.ident(&t)));
                        }
                    }
                }
                _ => {}
            }
        }
        UseDecl { target, bindings }
    }

    pub(super) fn site_decl(&mut self, pair: P<'t>) -> SiteDecl {
        let body_span = self.span(&pair);
        let mut site = SiteDecl {
            name: missing_ident(body_span),
            title: None,
            domain: None,
            start: None,
            today: None,
            body_span,
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => site.name = self.ident(&p),
                Rule::site_item => self.site_item(p, &mut site),
                Rule::bad_in_braces => self.bad_chunk(
                    &p,
                    Some(Rule::site_item),
                    "a site item (`title`, `domain`, `start` or `today`)",
                ),
                Rule::close_brace => {
                    let owner = format!("site {}", site.name.name);
                    self.check_close(&p, "}", &owner, site.name.span)
                }
                _ => {}
            }
        }
        for (missing, item) in [
            (site.title.is_none(), "title"),
            (site.domain.is_none(), "domain"),
            (site.start.is_none(), "start"),
        ] {
            if missing {
                self.diags.push(
                    Diagnostic::new(
                        Code::E001,
                        site.name.span,
                        format!("site `{}` has no `{item}`", site.name.name),
                    )
                    .help(format!("add `{item} ...` inside the site's braces")),
                );
            }
        }
        site
    }

    pub(super) fn site_item(&mut self, pair: P<'t>, site: &mut SiteDecl) {
        let Some(item) = pair.into_inner().next() else {
            return;
        };
        let item_span = self.span(&item);
        let key = item.as_rule();
        let Some(value) = item.into_inner().nth(1) else {
            return;
        };
        let repeated = match key {
            Rule::site_title => site.title.replace(self.text_lit(value)).is_some(),
            Rule::site_domain => site.domain.replace(self.ident(&value)).is_some(),
            Rule::site_start => site.start.replace(self.page_ref(value)).is_some(),
            Rule::site_today => {
                let e = self.expr(value);
                site.today.replace(e).is_some()
            }
            _ => false,
        };
        if repeated {
            self.diags.push(
                Diagnostic::new(Code::E102, item_span, "site item given twice")
                    .label("this replaces an earlier value")
                    .help("keep one of them"),
            );
        }
    }

    pub(super) fn enum_decl(&mut self, pair: P<'t>) -> EnumDecl {
        let span = self.span(&pair);
        let mut name = missing_ident(span);
        let mut variants = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident if name.name.is_empty() => name = self.ident(&p),
                Rule::ident => variants.push(self.ident(&p)),
                Rule::bad_in_braces => self.bad_chunk(&p, None, "a variant name"),
                Rule::close_brace => {
                    self.check_close(&p, "}", &format!("enum {}", name.name), name.span)
                }
                _ => {}
            }
        }
        EnumDecl { name, variants }
    }

    pub(super) fn table_decl(&mut self, pair: P<'t>) -> TableDecl {
        let span = self.span(&pair);
        let mut table = TableDecl {
            name: missing_ident(span),
            max: None,
            fields: Vec::new(),
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => table.name = self.ident(&p),
                Rule::table_max => {
                    if let Some(n) = p.into_inner().nth(1) {
                        table.max = self.int_value(&n).map(|v| (v, self.span(&n)));
                    }
                }
                Rule::field_decl => table.fields.push(self.field_decl(p)),
                Rule::bad_in_braces => {
                    self.bad_chunk(&p, Some(Rule::field_decl), "a field like `name: Text`")
                }
                Rule::close_brace => self.check_close(
                    &p,
                    "}",
                    &format!("table {}", table.name.name),
                    table.name.span,
                ),
                _ => {}
            }
        }
        table
    }

    pub(super) fn field_decl(&mut self, pair: P<'t>) -> FieldDecl {
        let span = self.span(&pair);
        let mut parts = pair.into_inner();
        let name = self.ident_or(parts.next(), span);
        let ty = self.type_or(parts.next(), span);
        FieldDecl { name, ty }
    }

    pub(super) fn type_expr(&mut self, pair: P<'t>) -> TypeExpr {
        let span = self.span(&pair);
        let mut parts = pair.into_inner();
        let name = self.ident_or(parts.next(), span);
        TypeExpr {
            name,
            optional: parts.next().is_some(),
            span,
        }
    }

    pub(super) fn seed_decl(&mut self, pair: P<'t>) -> SeedDecl {
        let span = self.span(&pair);
        let mut seed = SeedDecl {
            table: missing_ident(span),
            rows: Vec::new(),
        };
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => seed.table = self.ident(&p),
                Rule::seed_row => {
                    let row_span = self.span(&p);
                    let fields = p.into_inner().map(|f| self.field_init(f)).collect();
                    seed.rows.push(SeedRow {
                        fields,
                        span: row_span,
                    });
                }
                Rule::bad_in_brackets => {
                    self.bad_chunk(&p, Some(Rule::seed_row), "a row like `{ name: \"...\" }`")
                }
                Rule::close_bracket => self.check_close(
                    &p,
                    "]",
                    &format!("seed {}", seed.table.name),
                    seed.table.span,
                ),
                _ => {}
            }
        }
        seed
    }

    pub(super) fn field_init(&mut self, pair: P<'t>) -> FieldInit {
        let span = self.span(&pair);
        let mut parts = pair.into_inner();
        let name = self.ident_or(parts.next(), span);
        let value = self.expr_opt(parts.next(), span);
        FieldInit { name, value }
    }

    pub(super) fn session_decl(&mut self, pair: P<'t>) -> SessionDecl {
        let span = self.span(&pair);
        let mut vars = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::session_var => {
                    let vspan = self.span(&p);
                    let mut parts = p.into_inner();
                    let name = self.ident_or(parts.next(), vspan);
                    let ty = self.type_or(parts.next(), vspan);
                    let init = self.expr_opt(parts.next(), vspan);
                    vars.push(SessionVar { name, ty, init });
                }
                Rule::bad_in_braces => self.bad_chunk(
                    &p,
                    Some(Rule::session_var),
                    "a variable like `user: User = User[1]`",
                ),
                Rule::close_brace => self.check_close(
                    &p,
                    "}",
                    "session",
                    Span {
                        end: span.start + 7,
                        ..span
                    },
                ),
                _ => {}
            }
        }
        SessionDecl { vars }
    }

    pub(super) fn invariant_decl(&mut self, pair: P<'t>) -> InvariantDecl {
        let span = self.span(&pair);
        let mut parts = pair.into_inner().skip(1);
        let name = self.ident_or(parts.next(), span);
        let cond = self.expr_opt(parts.next(), span);
        InvariantDecl { name, cond }
    }

    pub(super) fn params(&mut self, pair: P<'t>) -> Vec<Param> {
        pair.into_inner()
            .map(|p| {
                let span = self.span(&p);
                let mut parts = p.into_inner();
                let name = self.ident_or(parts.next(), span);
                let ty = self.type_or(parts.next(), span);
                Param { name, ty }
            })
            .collect()
    }
}
