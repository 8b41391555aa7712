//! Binding a module's table parameters: `use "./cart.wsite"(Item = Product)`
//! or `use std::cart(Item = Product)` against `module cart(Item: table { … })`.
//!
//! A module is instantiated when it is parsed: every name in it that names a
//! parameter is renamed to the table bound to it, and the parameters are
//! dropped, so the checker, the lowering and everything after see an ordinary
//! file over real tables. What a parameter promised (its fields and their
//! types) becomes a [`Requirement`] checked against the bound table once
//! every file is parsed, with diagnostics at the binding and at the module's
//! field. A module is instantiated once per program: its declarations join
//! the one global namespace, so a second binding would declare everything
//! twice.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::syntax::ast::{DeclKind, FieldDecl, Ident, SourceFile, Span};
use serde_json::Value;
use std::collections::BTreeMap;

/// The bindings a `use` gives the module it loads.
#[derive(Clone, Debug)]
pub(crate) struct Binding {
    /// The whole `use` declaration.
    pub span: Span,
    pub pairs: Vec<(Ident, Ident)>,
}

/// A bound parameter's promise: the bound table has these fields.
#[derive(Clone, Debug)]
pub(crate) struct Requirement {
    module: String,
    param: Ident,
    fields: Vec<FieldDecl>,
    table: Ident,
}

/// Instantiates `file` with `binding`; the promises to check later.
pub(crate) fn instantiate(
    file: &mut SourceFile,
    binding: &Binding,
    diags: &mut Diagnostics,
) -> Vec<Requirement> {
    let Some(header) = file.module.as_mut() else {
        if let Some((param, _)) = binding.pairs.first() {
            diags.push(
                Diagnostic::new(
                    Code::E101,
                    param.span,
                    format!(
                        "this file is not a module, so it has no parameter `{}`",
                        param.name
                    ),
                )
                .help("only a file starting with `module name(Param: table { … })` takes bindings"),
            );
        }
        return Vec::new();
    };
    let module = header.name.name.clone();
    let params = std::mem::take(&mut header.params);
    let mut renames = BTreeMap::new();
    let mut requirements = Vec::new();
    for (param, table) in &binding.pairs {
        match params.iter().find(|p| p.name.name == param.name) {
            Some(p) if renames.contains_key(&param.name) => diags.push(
                Diagnostic::new(
                    Code::E102,
                    param.span,
                    format!("`{}` is bound twice", param.name),
                )
                .related(p.name.span, "the parameter"),
            ),
            Some(p) => {
                renames.insert(param.name.clone(), table.name.clone());
                requirements.push(Requirement {
                    module: module.clone(),
                    param: p.name.clone(),
                    fields: p.fields.clone(),
                    table: table.clone(),
                });
            }
            None => {
                let names: Vec<&str> = params.iter().map(|p| p.name.name.as_str()).collect();
                diags.push(
                    Diagnostic::new(
                        Code::E101,
                        param.span,
                        format!("module `{module}` has no parameter `{}`", param.name),
                    )
                    .help(format!("its parameters: {}", names.join(", "))),
                );
            }
        }
    }
    for p in &params {
        if !renames.contains_key(&p.name.name) {
            diags.push(
                Diagnostic::new(
                    Code::E101,
                    binding.span,
                    format!("module `{module}` needs a table for `{}`", p.name.name),
                )
                .label(format!("add `{} = SomeTable` to the bindings", p.name.name))
                .related(p.name.span, "the parameter"),
            );
        }
    }
    if let Err(why) = rename(file, &renames) {
        diags.push(Diagnostic::new(
            Code::E001,
            binding.span,
            format!("internal compiler error while binding module `{module}`: {why}"),
        ));
    }
    requirements
}

/// Renames every name in the file's declarations that `renames` maps. A name
/// is one kind of node in the syntax tree (an `Ident`), so going through the
/// tree's serialized form reaches every position a table can be named in
/// without a hand-written walk that could miss one. A field or variable
/// spelled exactly like a parameter would be renamed too; parameters are
/// table names, capitalised, where fields and variables are lower-case.
fn rename(file: &mut SourceFile, renames: &BTreeMap<String, String>) -> Result<(), String> {
    if renames.is_empty() {
        return Ok(());
    }
    let mut tree = serde_json::to_value(&file.decls).map_err(|e| e.to_string())?;
    rename_names(&mut tree, renames);
    file.decls = serde_json::from_value(tree).map_err(|e| e.to_string())?;
    Ok(())
}

/// An `Ident` serializes as `{"name": "…", "span": {…}}`.
fn rename_names(tree: &mut Value, renames: &BTreeMap<String, String>) {
    match tree {
        Value::Object(map) => {
            let is_ident = map.len() == 2 && map.contains_key("span");
            if let (true, Some(Value::String(name))) = (is_ident, map.get_mut("name")) {
                if let Some(new) = renames.get(name.as_str()) {
                    name.clone_from(new);
                }
                return;
            }
            map.values_mut().for_each(|v| rename_names(v, renames));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename_names(v, renames)),
        _ => {}
    }
}

/// Checks every bound table against its parameter's fields: each must be
/// there with the same type (a table may have more fields than promised).
pub(crate) fn check_requirements(
    files: &[SourceFile],
    requirements: &[Requirement],
    diags: &mut Diagnostics,
) {
    let tables: BTreeMap<&str, &[FieldDecl]> = files
        .iter()
        .flat_map(|f| &f.decls)
        .filter_map(|d| match &d.kind {
            DeclKind::Table(t) => Some((t.name.name.as_str(), t.fields.as_slice())),
            _ => None,
        })
        .collect();
    for r in requirements {
        // An unknown table is the checker's E101 at the binding already.
        let Some(fields) = tables.get(r.table.name.as_str()) else {
            continue;
        };
        for want in &r.fields {
            check_field(r, fields, want, diags);
        }
    }
}

fn check_field(r: &Requirement, fields: &[FieldDecl], want: &FieldDecl, diags: &mut Diagnostics) {
    let (table, module, param) = (&r.table.name, &r.module, &r.param.name);
    let field = &want.name.name;
    let wanted = type_text(want);
    match fields.iter().find(|f| f.name.name == *field) {
        None => diags.push(
            Diagnostic::new(
                Code::E101,
                r.table.span,
                format!("table `{table}` has no field `{field}`, which module `{module}` needs"),
            )
            .label(format!("bound to `{param}` here"))
            .related(
                want.name.span,
                format!("`{param}` promises `{field}: {wanted}`"),
            )
            .help(format!(
                "add `{field}: {wanted}` to `{table}`, or bind another table"
            )),
        ),
        Some(have) if !same_type(have, want, r) => diags.push(
            Diagnostic::new(
                Code::E201,
                r.table.span,
                format!(
                    "`{table}.{field}` is `{}`, but module `{module}` needs `{wanted}`",
                    type_text(have)
                ),
            )
            .label(format!("bound to `{param}` here"))
            .related(
                want.ty.span,
                format!("`{param}.{field}` is declared `{wanted}`"),
            ),
        ),
        Some(_) => {}
    }
}

/// Equal types, a promised field typed by the parameter itself meaning the
/// bound table.
fn same_type(have: &FieldDecl, want: &FieldDecl, r: &Requirement) -> bool {
    let wanted = if want.ty.name.name == r.param.name {
        &r.table.name
    } else {
        &want.ty.name.name
    };
    have.ty.name.name == *wanted && have.ty.optional == want.ty.optional
}

fn type_text(f: &FieldDecl) -> String {
    format!("{}{}", f.ty.name.name, if f.ty.optional { "?" } else { "" })
}
