//! Aligned columns for a person to read. Every cell is escaped
//! ([`crate::escape::escape`]), so no cell can break a row or a column.

use crate::escape::escape;

/// How a column's cells line up.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Align {
    /// Text: padded on the right.
    Left,
    /// Numbers and durations: padded on the left.
    Right,
}

/// Rows of cells shown in aligned columns, two spaces apart.
pub struct Table {
    columns: Vec<(&'static str, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table whose first line names its columns.
    pub fn new(columns: &[(&'static str, Align)]) -> Table {
        Table {
            columns: columns.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; missing cells are empty, extra cells are dropped.
    pub fn row<S: AsRef<str>>(&mut self, cells: impl IntoIterator<Item = S>) {
        let mut row: Vec<String> = cells.into_iter().map(|c| escape(c.as_ref())).collect();
        row.resize(self.columns.len(), String::new());
        self.rows.push(row);
    }

    /// The lines, each starting with `indent` and without trailing spaces.
    pub fn render(&self, indent: &str) -> String {
        let header: Vec<String> = self.columns.iter().map(|(h, _)| h.to_string()).collect();
        let lines: Vec<&Vec<String>> = std::iter::once(&header).chain(&self.rows).collect();
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| lines.iter().map(|row| width(&row[i])).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for row in lines {
            let mut line = indent.to_string();
            for (i, cell) in row.iter().enumerate() {
                if i > 0 {
                    line.push_str("  ");
                }
                let pad = " ".repeat(widths[i] - width(cell));
                match self.columns[i].1 {
                    Align::Left => line.extend([cell.as_str(), &pad]),
                    Align::Right => line.extend([&pad, cell.as_str()]),
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// The column where [`labelled`] lines start their value.
const LABEL_WIDTH: usize = 9;

/// One `label  value` line, the values of such lines starting in one
/// column; the value escaped.
pub fn labelled(label: &str, value: &str) -> String {
    format!("{label:<LABEL_WIDTH$}{}\n", escape(value))
}

/// A cell's width in characters.
fn width(cell: &str) -> usize {
    cell.chars().count()
}

#[cfg(test)]
mod tests {
    use super::{labelled, Align, Table};

    #[test]
    fn columns_line_up_under_their_header() {
        let mut t = Table::new(&[
            ("NAME", Align::Left),
            ("LEFT", Align::Right),
            ("", Align::Left),
        ]);
        t.row(["summaries", "14.2s", ""]);
        t.row(["a", "850ms", "kept alive"]);
        assert_eq!(
            t.render("  "),
            "  NAME        LEFT\n  summaries  14.2s\n  a          850ms  kept alive\n"
        );
    }

    #[test]
    fn labelled_lines_line_up_and_escape_the_value() {
        let lines = labelled("epoch", "1") + &labelled("waiting", "0\n\x1b[31m");
        assert_eq!(lines, "epoch    1\nwaiting  0\\n\\x1b[31m\n");
    }

    #[test]
    fn cells_are_escaped_and_measured_escaped() {
        let mut t = Table::new(&[("KEY", Align::Left), ("N", Align::Right)]);
        t.row(["a\nb", "1"]);
        t.row(["ключ", "2"]);
        assert_eq!(t.render(""), "KEY   N\na\\nb  1\nключ  2\n");
    }

    #[test]
    fn short_rows_are_padded_and_long_rows_cut() {
        let mut t = Table::new(&[("A", Align::Left), ("B", Align::Left)]);
        t.row(["x"]);
        t.row(["y", "z", "dropped"]);
        assert_eq!(t.render(""), "A  B\nx\ny  z\n");
    }
}
