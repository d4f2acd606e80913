//! No two files of core use each other, directly or round a longer loop:
//! every dependency between the files of core/src goes one way
//! (docs/architecture.md draws the layers).
//!
//! A file uses another when it names a path into it: in a `use` or in code,
//! `crate::a::b::Item`, `super::x::Item`, `self::x::Item`, or `child::Item`
//! after `mod child;`. A path ends in the deepest file it names (`a/b.rs`
//! or `a/b/mod.rs`); a name that file only re-exports with a `use` goes on
//! to the file the `use` points to, so `crate::Lease` is lease.rs, not
//! lib.rs. `mod x;` itself is not a use: a parent declaring a child is the
//! crate's shape, not a dependency.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path from the crate root: `["engine", "wait"]`.
type ModPath = Vec<String>;

/// One file: where it is, what it declares and what it names.
struct File {
    rel: String,
    /// `mod x;` declarations: children whose names are paths from here.
    children: BTreeSet<String>,
    /// The names its top-level `use`s bring in, each to the path it names.
    aliases: BTreeMap<String, ModPath>,
    /// Every path it names: the module it was named in, and the path.
    paths: Vec<(ModPath, String)>,
}

/// Reads every .rs file under `src` (a crate's src/).
fn read_crate(src: &Path) -> BTreeMap<ModPath, File> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable") {
            let path = entry.expect("src is readable").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).unwrap().to_string_lossy();
                let rel = rel.replace('\\', "/");
                let mut module: ModPath =
                    rel[..rel.len() - 3].split('/').map(String::from).collect();
                if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                    module.pop();
                }
                let text = std::fs::read_to_string(&path).expect("a source file is readable");
                files.insert(module.clone(), scan(&module, rel, &strip(&text)));
            }
        }
    }
    files
}

/// The code of a file without its comments, strings and char literals.
fn strip(text: &str) -> String {
    let s: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let rest = |i: usize, n: usize| s.get(i + n).copied().unwrap_or(' ');
        if s[i] == '/' && rest(i, 1) == '/' {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if s[i] == '/' && rest(i, 1) == '*' {
            i += 2;
            while i < s.len() && !(s[i] == '*' && rest(i, 1) == '/') {
                i += 1;
            }
            i += 2;
        } else if s[i] == 'r'
            && (rest(i, 1) == '"' || rest(i, 1) == '#')
            && !ident(s.get(i.wrapping_sub(1)))
        {
            let hashes = (1..).take_while(|&n| rest(i, n) == '#').count();
            if rest(i, hashes + 1) != '"' {
                out.push(s[i]);
                i += 1;
                continue;
            }
            i += hashes + 2;
            while i < s.len() && !(s[i] == '"' && (1..=hashes).all(|n| rest(i, n) == '#')) {
                i += 1;
            }
            i += hashes + 1;
            out.push_str("\"\"");
        } else if s[i] == '"' {
            i += 1;
            while i < s.len() && s[i] != '"' {
                i += if s[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if s[i] == '\'' && (rest(i, 2) == '\'' || rest(i, 1) == '\\') {
            // A char literal ('x' or '\n', '\u{..}'); a lifetime has no closing quote.
            i += 1;
            while i < s.len() && s[i] != '\'' {
                i += if s[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

fn ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// Finds a file's declarations, `use`s and paths, following inline modules
/// (`mod tests { ... }`) so that `super::` in them means what it does.
fn scan(module: &ModPath, rel: String, code: &str) -> File {
    let children: BTreeSet<String> = words(code)
        .windows(3)
        .filter(|w| w[0].1 == "mod" && w[2].1 == ";")
        .map(|w| w[1].1.clone())
        .collect();
    let mut file = File {
        rel,
        children,
        aliases: BTreeMap::new(),
        paths: Vec::new(),
    };
    let tokens = words(code);
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        let (at, word) = (&tokens[i].0, tokens[i].1.as_str());
        let here: ModPath = module
            .iter()
            .cloned()
            .chain(inline.iter().map(|m| m.0.clone()))
            .collect();
        match word {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|m| m.1 == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t.1 == "{") => {
                depth += 1;
                inline.push((tokens[i + 1].1.clone(), depth));
                i += 3;
                continue;
            }
            "use" => {
                let end = code[*at..].find(';').map_or(code.len(), |n| at + n);
                for item in expand_use(&code[at + 3..end]) {
                    // `a::b as c` brings in `c`; `a::b` brings in `b`.
                    let (path, name) = match item.split_once(" as ") {
                        Some((path, name)) => (path.trim(), name.trim()),
                        None => (item.as_str(), item.rsplit("::").next().unwrap()),
                    };
                    if depth == 0 {
                        if let Some(target) = absolute(&file, &here, path, true) {
                            file.aliases.insert(name.to_string(), target);
                        }
                    }
                    file.paths.push((here.clone(), path.to_string()));
                }
                while i < tokens.len() && tokens[i].0 < end {
                    i += 1;
                }
                continue;
            }
            _ if code[at + word.len()..].starts_with("::") && !code[..*at].ends_with("::") => {
                let end = code[*at..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .map_or(code.len(), |n| at + n);
                file.paths.push((here.clone(), code[*at..end].to_string()));
            }
            _ => {}
        }
        i += 1;
    }
    file
}

/// The words and braces of `code`, each with its byte offset.
fn words(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in code.char_indices().chain([(code.len(), ' ')]) {
        if c.is_alphanumeric() || c == '_' {
            start.get_or_insert(at);
            continue;
        }
        if let Some(s) = start.take() {
            out.push((s, code[s..at].to_string()));
        }
        if matches!(c, '{' | '}' | ';') {
            out.push((at, c.to_string()));
        }
    }
    out
}

/// `a::{b, c::{d, e as f}}` as `a::b`, `a::c::d`, `a::c::e as f`.
fn expand_use(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree = tree
        .replace(" ::", "::")
        .replace(":: ", "::")
        .replace("{ ", "{")
        .replace(" }", "}");
    let mut out = Vec::new();
    let (mut depth, mut item) = (0, String::new());
    let mut items = Vec::new();
    for c in tree.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            items.push(std::mem::take(&mut item));
        } else {
            item.push(c);
        }
    }
    items.push(item);
    for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
        match item.find('{') {
            Some(open) if item.ends_with('}') => {
                let prefix = &item[..open];
                out.extend(
                    expand_use(&item[open + 1..item.len() - 1])
                        .into_iter()
                        .map(|p| format!("{prefix}{p}")),
                );
            }
            _ => out.push(item.to_string()),
        }
    }
    // `a::{self}` is `a`.
    out.into_iter()
        .map(|p| p.strip_suffix("::self").map_or(p.clone(), String::from))
        .collect()
}

/// A path named in module `here` of `file`, from the crate root; `None`
/// for a path outside the crate (std, tokio, ...).
fn absolute(file: &File, here: &ModPath, path: &str, top: bool) -> Option<ModPath> {
    let mut segs = path
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .peekable();
    let mut out: ModPath = match *segs.peek()? {
        "crate" => {
            segs.next();
            Vec::new()
        }
        "super" | "self" => {
            let mut at = here.clone();
            while let Some(&s) = segs.peek() {
                match s {
                    "super" => at.pop(),
                    "self" => None,
                    _ => break,
                };
                segs.next();
            }
            at
        }
        first if top && file.children.contains(first) => here.clone(),
        _ => return None,
    };
    out.extend(segs.map(String::from));
    Some(out)
}

/// The file a path into the crate ends in, following re-exports.
fn resolve(files: &BTreeMap<ModPath, File>, mut path: ModPath) -> Option<ModPath> {
    for _ in 0..16 {
        let cut = (0..=path.len())
            .rev()
            .find(|&n| files.contains_key(&path[..n]))?;
        let module = path[..cut].to_vec();
        let next = path
            .get(cut)
            .and_then(|name| files[&module].aliases.get(name));
        match next {
            Some(target) if *target != path[..=cut] => {
                path = target
                    .iter()
                    .cloned()
                    .chain(path[cut + 1..].iter().cloned())
                    .collect();
            }
            _ => return Some(module),
        }
    }
    None
}

/// Every file another file uses, with the first path that says so.
fn uses(files: &BTreeMap<ModPath, File>) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (module, file) in files {
        let out = edges.entry(file.rel.clone()).or_default();
        for (here, path) in &file.paths {
            let top = here == module;
            let Some(target) = absolute(file, here, path, top).and_then(|p| resolve(files, p))
            else {
                continue;
            };
            if target != *module {
                out.entry(files[&target].rel.clone())
                    .or_insert_with(|| path.clone());
            }
        }
    }
    edges
}

/// Every loop of files that use each other, as `a -> b -> a` with the
/// path that makes each step; empty when the uses go one way.
fn circles(src: &Path) -> Vec<String> {
    let edges = uses(&read_crate(src));
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    for start in edges.keys() {
        // The shortest way back to `start`, breadth first.
        let mut back: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(at) = queue.pop_front() {
            for next in edges[at].keys() {
                if next == start {
                    let mut loop_ = vec![at];
                    while let Some(prev) = back.get(loop_.last().unwrap()) {
                        loop_.push(prev);
                    }
                    loop_.reverse();
                    let key: BTreeSet<_> = loop_.iter().cloned().collect();
                    if seen.insert(key) {
                        let mut text = start.clone();
                        for (a, b) in loop_.iter().zip(loop_.iter().skip(1).chain([&start])) {
                            text += &format!(" -> {b} ({})", edges[*a][*b]);
                        }
                        found.push(text);
                    }
                    queue.clear();
                    break;
                }
                if next != start && !back.contains_key(next) {
                    back.insert(next, at);
                    queue.push_back(next);
                }
            }
        }
    }
    found
}

#[test]
fn no_two_files_of_core_use_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // The reading sees the uses it must: were it blind, no loop would show.
    let edges = uses(&read_crate(&src));
    for (from, to) in [
        ("server/handler.rs", "server/ops.rs"),
        ("server/ops.rs", "server/connection.rs"),
        ("client/link.rs", "client/table.rs"),
        ("store.rs", "election/group.rs"),
    ] {
        assert!(
            edges[from].contains_key(to),
            "{from} uses {to}: {:?}",
            edges[from]
        );
    }
    let found = circles(&src);
    assert!(
        found.is_empty(),
        "files of core/src that use each other (make the dependency go one way):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn a_circle_is_found_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir(src.join("server")).unwrap();
    let write = |path: &str, text: &str| std::fs::write(src.join(path), text).unwrap();
    write(
        "lib.rs",
        "mod server;\nmod wire;\npub use server::Server;\n",
    );
    write(
        "wire.rs",
        "//! use crate::server::Server;\npub struct Frame;\n",
    );
    write(
        "server/mod.rs",
        "mod ops;\nmod session;\npub struct Server;\n",
    );
    write(
        "server/session.rs",
        "use super::ops::{self, handle};\nfn f() { ops::handle(); }\n",
    );
    write(
        "server/ops.rs",
        "use crate::wire::Frame;\npub fn handle() { let s = \"super::session\"; }\n",
    );
    assert!(circles(src).is_empty(), "{:?}", circles(src));
    write(
        "server/ops.rs",
        "pub fn handle() { super::session::f(); }\n",
    );
    assert_eq!(
        circles(src),
        ["server/ops.rs -> server/session.rs (super::session::f) -> server/ops.rs (super::ops)"]
    );
    // Through a re-export and a test module, round three files.
    write(
        "server/ops.rs",
        "pub fn handle() {}\n#[cfg(test)]\nmod tests { use crate::Server; }\n",
    );
    write(
        "server/mod.rs",
        "mod ops;\nmod session;\npub struct Server;\nfn g() { session::f(); }\n",
    );
    let round = "server/mod.rs -> server/session.rs (session::f) \
                 -> server/ops.rs (super::ops) -> server/mod.rs (crate::Server)";
    assert_eq!(circles(src), [round]);
}

#[test]
fn no_two_files_of_a_binding_use_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for crate_src in [
        "bindings-python/src",
        "bindings-node/src",
        "bindings-go/capi/src",
    ] {
        let src = root.join(crate_src);
        // The reading sees each binding's uses: a crate read as empty
        // would show no loop.
        let edges = uses(&read_crate(&src));
        assert!(
            edges.values().any(|to| !to.is_empty()),
            "{crate_src}: no file uses another"
        );
        found.extend(
            circles(&src)
                .into_iter()
                .map(|c| format!("{crate_src}: {c}")),
        );
    }
    assert!(
        found.is_empty(),
        "files of a binding that use each other (make the dependency go one way):\n  {}",
        found.join("\n  ")
    );
}
