//! Errors (core/src/error): every code named in each language's docs.

mod names_doc;
