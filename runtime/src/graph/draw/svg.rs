//! The site map as SVG, laid out here so no Graphviz is needed.
//!
//! Layered layout: a page's layer is its depth (edges from the start in the
//! navigation graph), unreachable pages in one layer below the rest. Within a
//! layer pages start in page order, then one downward and one upward
//! barycentre pass reorder them by the mean position of their neighbours in
//! the layers above, then below (ties keep the previous order), which removes
//! most crossings on small sites. Boxes are sized from their text (a fixed
//! width per character), arrows run centre to centre clipped at the box
//! borders, labels sit at the arrow's middle. Only integer and one-decimal
//! numbers are written, so the bytes are the same on every machine.

use super::{Arrow, Map, Mark, Style};
use std::fmt::Write;

const CHAR_W: i64 = 7;
const BOX_H: i64 = 40;
const GAP_X: i64 = 40;
const GAP_Y: i64 = 100;
const MARGIN: i64 = 30;

/// `s` with the five XML special characters escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A placed page box: top-left corner and size.
#[derive(Clone, Copy, Debug, Default)]
struct Placed {
    x: i64,
    y: i64,
    w: i64,
}

impl Placed {
    fn centre(&self) -> (f64, f64) {
        ((self.x + self.w / 2) as f64, (self.y + BOX_H / 2) as f64)
    }
}

/// Each page's layer: its depth, unreachable pages after the deepest.
fn layers(map: &Map<'_>) -> Vec<Vec<usize>> {
    let deepest = map.pages.iter().filter_map(|p| p.depth).max().unwrap_or(0);
    let mut layers = vec![Vec::new(); deepest + 2];
    for (i, p) in map.pages.iter().enumerate() {
        let layer = p.depth.unwrap_or(deepest + 1);
        if let Some(l) = layers.get_mut(layer) {
            l.push(i);
        }
    }
    layers.retain(|l| !l.is_empty());
    layers
}

/// One barycentre pass: each layer (in `order`) sorted by the mean position
/// of its pages' neighbours in the layers already placed.
fn barycentre_pass(layers: &mut [Vec<usize>], arrows: &[Arrow], order: &[usize], pages: usize) {
    let mut placed: Vec<Option<f64>> = vec![None; pages];
    for &li in order {
        let Some(layer) = layers.get(li) else {
            continue;
        };
        let mut keyed: Vec<(f64, usize, usize)> = layer
            .iter()
            .enumerate()
            .map(|(pos, &p)| {
                let near: Vec<f64> = arrows
                    .iter()
                    .filter_map(|a| match (a.from == p, a.to == p) {
                        (true, false) => placed.get(a.to).copied().flatten(),
                        (false, true) => placed.get(a.from).copied().flatten(),
                        _ => None,
                    })
                    .collect();
                let key = if near.is_empty() {
                    pos as f64
                } else {
                    near.iter().sum::<f64>() / near.len() as f64
                };
                (key, pos, p)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let sorted: Vec<usize> = keyed.iter().map(|k| k.2).collect();
        for (pos, &p) in sorted.iter().enumerate() {
            if let Some(slot) = placed.get_mut(p) {
                *slot = Some(pos as f64);
            }
        }
        if let Some(layer) = layers.get_mut(li) {
            *layer = sorted;
        }
    }
}

fn box_width(map: &Map<'_>, page: usize) -> i64 {
    let chars = map
        .pages
        .get(page)
        .map_or(0, |p| p.name.chars().count().max(p.route.chars().count()));
    i64::try_from(chars).unwrap_or(200).min(200) * CHAR_W + 20
}

/// Every page's box.
fn place(map: &Map<'_>) -> (Vec<Placed>, i64, i64) {
    let mut layers = layers(map);
    let down: Vec<usize> = (0..layers.len()).collect();
    let up: Vec<usize> = down.iter().rev().copied().collect();
    barycentre_pass(&mut layers, &map.arrows, &down, map.pages.len());
    barycentre_pass(&mut layers, &map.arrows, &up, map.pages.len());
    let widths: Vec<i64> = layers
        .iter()
        .map(|l| l.iter().map(|&p| box_width(map, p) + GAP_X).sum::<i64>() - GAP_X)
        .collect();
    let widest = widths.iter().copied().max().unwrap_or(0).max(200);
    let mut placed = vec![Placed::default(); map.pages.len()];
    let mut y = MARGIN + 30;
    for (layer, width) in layers.iter().zip(&widths) {
        let mut x = MARGIN + (widest - width) / 2;
        for &p in layer {
            let w = box_width(map, p);
            if let Some(slot) = placed.get_mut(p) {
                *slot = Placed { x, y, w };
            }
            x += w + GAP_X;
        }
        y += BOX_H + GAP_Y;
    }
    (placed, widest + 2 * MARGIN, y - GAP_Y + MARGIN)
}

/// Where the segment from `b`'s centre towards `toward` leaves box `b`.
fn clip(b: &Placed, toward: (f64, f64)) -> (f64, f64) {
    let (cx, cy) = b.centre();
    let (dx, dy) = (toward.0 - cx, toward.1 - cy);
    let (hw, hh) = (b.w as f64 / 2.0, BOX_H as f64 / 2.0);
    let tx = if dx.abs() > 0.0 {
        hw / dx.abs()
    } else {
        f64::INFINITY
    };
    let ty = if dy.abs() > 0.0 {
        hh / dy.abs()
    } else {
        f64::INFINITY
    };
    let t = tx.min(ty).min(1.0);
    (cx + dx * t, cy + dy * t)
}

/// The map as a standalone SVG document.
pub fn svg(map: &Map<'_>) -> String {
    let (placed, width, height) = place(map);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"Helvetica, Arial, sans-serif\">"
    );
    out.push_str("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#444\"/></marker></defs>\n");
    let _ = writeln!(
        out,
        "<text x=\"{MARGIN}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\">{}</text>",
        MARGIN + 4,
        escape(map.title)
    );
    for a in &map.arrows {
        arrow(&mut out, &placed, a);
    }
    for (i, page) in map.pages.iter().enumerate() {
        let Some(b) = placed.get(i) else { continue };
        let (fill, stroke) = match map.marks.get(i) {
            Some(Mark::DeadEnd) => ("#f5b7b1", " stroke=\"#c0392b\""),
            Some(Mark::Unreachable) => ("#ffffff", " stroke=\"#888\" stroke-dasharray=\"4 3\""),
            _ => ("#eef3fb", " stroke=\"#34495e\""),
        };
        let _ = writeln!(
            out,
            "<g><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{BOX_H}\" rx=\"4\" fill=\"{fill}\"{stroke}/><text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" font-weight=\"bold\">{}</text><text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#555\">{}</text></g>",
            b.x,
            b.y,
            b.w,
            b.x + b.w / 2,
            b.y + 16,
            escape(&page.name),
            b.x + b.w / 2,
            b.y + 32,
            escape(&page.route)
        );
    }
    out.push_str("</svg>\n");
    out
}

fn arrow(out: &mut String, placed: &[Placed], a: &Arrow) {
    let (Some(from), Some(to)) = (placed.get(a.from), placed.get(a.to)) else {
        return;
    };
    let dash = match a.style {
        Style::Nav => "",
        Style::Marker => " stroke-dasharray=\"6 4\"",
        Style::Guard => " stroke-dasharray=\"2 3\"",
    };
    let colour = match a.style {
        Style::Nav => "#444",
        Style::Marker => "#2471a3",
        Style::Guard => "#ca6f1e",
    };
    let (lx, ly) = if a.from == a.to {
        // A self-loop: a small arc off the box's right side.
        let (x, y) = ((from.x + from.w) as f64, from.y as f64);
        let _ = writeln!(
            out,
            "<path d=\"M{:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"none\" stroke=\"{colour}\"{dash} marker-end=\"url(#arrow)\"/>",
            x, y + 10.0, x + 30.0, y, x + 30.0, y + 40.0, x, y + 30.0
        );
        (x + 34.0, y + 24.0)
    } else {
        let (p, q) = (clip(from, to.centre()), clip(to, from.centre()));
        let _ = writeln!(
            out,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\"{dash} marker-end=\"url(#arrow)\"/>",
            p.0, p.1, q.0, q.1
        );
        ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0)
    };
    if a.label.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<text x=\"{lx:.1}\" y=\"{ly:.1}\" font-size=\"9\" fill=\"{colour}\">"
    );
    for (i, line) in a.label.lines().enumerate() {
        let dy = if i == 0 { "0" } else { "1.1em" };
        let _ = write!(
            out,
            "<tspan x=\"{lx:.1}\" dy=\"{dy}\">{}</tspan>",
            escape(line)
        );
    }
    out.push_str("</text>\n");
}
