//! What a guard's machine tells the Go side to do next (`TsGuardStep`)
//! and how it ended (`TsVerdict`), as C structs that borrow their texts
//! from the machine: they stay valid until the machine's next call or its
//! free, so a step costs no allocation the caller must give back and no
//! call to clear it.

use crate::error::{Failure, TsCode};
use crate::fence::TsFence;
use crate::guard_observed::{TsPair, TsText};
use std::borrow::Cow;
use tinystore::guard::dynamo_check::DynamoStep;
use tinystore::guard::redis_check::RedisStep;
use tinystore::guard::versioned_check::{Condition, VersionedStep};
use tinystore::guard::{ObjectStep, SqlStep, Verdict};
use tinystore::Fence;

/// What a step asks for.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsStepKind {
    /// The machine ended: see `verdict`.
    Done = 0,
    /// SQL: run `text` with `params` and observe the rows it changed.
    Execute = 1,
    /// SQL: run `text` with `params` and observe its first row's first
    /// column as text, or no row.
    Query = 2,
    /// Objects: list every key under the prefix `text` (all pages).
    List = 3,
    /// Objects: put the body (empty for a tombstone) at the key `text`
    /// with `metadata`, unconditionally.
    Put = 4,
    /// Objects: delete the key `text`.
    Delete = 5,
    /// Objects: get the key `text` (its body, kept by the caller, and its
    /// metadata).
    Get = 6,
    /// Redis: run the script `text` with `keys` as its `KEYS` and
    /// `params` as its `ARGV` (`EVALSHA`, then `EVAL` on `NOSCRIPT`) and
    /// observe its reply.
    Eval = 7,
    /// DynamoDB: run `TransactWriteItems` with the caller's items and,
    /// last, the register item's conditional put in the table `text`
    /// (`ts_guard_dynamo_names` says its shape): its key, the resource,
    /// is `keys[0]`; `params` are its fence (40 digits) and the
    /// condition's `:digits`. Observe it written, cancelled (each item's
    /// reason code and the register item's fence as returned) or failed.
    Transact = 8,
    /// DynamoDB: read the register item of the table `text` whose key is
    /// `keys[0]` (`GetItem`, `ConsistentRead`) and observe its fence as a
    /// row, or no row (no item, or no `fence`).
    ReadItem = 9,
    /// GCS, Azure: read the object's version (GCS's generation in
    /// decimal, Azure's ETag as it is given) and its metadata, and observe
    /// it found (the version, and the value of the metadata key `text`,
    /// compared without case, when it has one) or absent.
    ReadObject = 10,
    /// GCS, Azure: put the caller's body and metadata with the metadata
    /// key `text` set to the fence `params[0]` (40 digits), on the
    /// condition that the object is still the version `params[1]` (GCS
    /// `ifGenerationMatch`, Azure `If-Match`) or, when `params_len` is 1,
    /// that it does not exist (GCS `ifGenerationMatch=0`, Azure
    /// `If-None-Match: *`). Observe it written, its condition failed (412,
    /// or Azure's 409 `BlobAlreadyExists`) or failed.
    PutVersioned = 11,
}

/// How a machine ended.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TsVerdictKind {
    /// Not ended (the step is not `TS_STEP_KIND_DONE`).
    Pending = 0,
    /// The write is accepted (or the read found what it reports).
    Accepted = 1,
    /// The guard's own error, `code` and `message` (`stale` with `stale_*`
    /// set): the tinystore error, with the driver's last error as its
    /// cause, if any.
    Refused = 2,
    /// The driver's own failure, classified: `code` (`io`, `unavailable`,
    /// `unauthorized`) and `message`; the driver's error is its cause.
    Driver = 3,
}

/// The end of a machine; its texts are borrowed like the step's.
#[repr(C)]
pub struct TsVerdict {
    pub kind: TsVerdictKind,
    /// The error's code for `Refused` and `Driver` (`TS_CODE_OK`
    /// otherwise) and its message (UTF-8, not NUL-terminated).
    pub code: TsCode,
    pub message: TsText,
    /// Whether the error is `stale`: then the three below are its
    /// resource, the refused write's fence and the largest recorded fence.
    pub stale: bool,
    pub stale_resource: TsText,
    pub stale_fence: TsFence,
    pub stale_largest: TsFence,
}

/// One step: what to do next, or the end. Its texts and arrays belong to
/// the machine that gave it, valid until that machine's next call or free.
#[repr(C)]
pub struct TsGuardStep {
    pub kind: TsStepKind,
    /// The statement (`Execute`, `Query`), the prefix (`List`), the key
    /// (`Put`, `Delete`, `Get`), the script (`Eval`), the register table
    /// (`Transact`, `ReadItem`) or the fence's metadata key (`ReadObject`,
    /// `PutVersioned`); empty for `Done`.
    pub text: TsText,
    /// The statement's parameters, in order (`Execute`, `Query`), the
    /// script's `ARGV` (`Eval`), the register item's fence and the
    /// condition's `:digits` (`Transact`), or the fence and, when the
    /// object must still be that version, the version (`PutVersioned`).
    pub params: *const TsText,
    pub params_len: usize,
    /// The script's `KEYS`, in order (`Eval`), or the register item's key
    /// alone (`Transact`, `ReadItem`).
    pub keys: *const TsText,
    pub keys_len: usize,
    /// The metadata of a `Put`.
    pub metadata: *const TsPair,
    pub metadata_len: usize,
    /// How it ended, for `Done`.
    pub verdict: TsVerdict,
}

/// The texts of the step a machine gave last, which the C step borrows.
#[derive(Default)]
pub struct Lent {
    text: Cow<'static, str>,
    params: Vec<String>,
    param_texts: Vec<TsText>,
    keys: Vec<String>,
    key_texts: Vec<TsText>,
    metadata: Vec<(String, String)>,
    metadata_pairs: Vec<TsPair>,
    message: String,
    stale_resource: String,
}

// SAFETY: the raw pointers in `param_texts`, `key_texts` and
// `metadata_pairs` point into
// this struct's own strings, which move with it; nothing else shares them.
unsafe impl Send for Lent {}

fn text_of(text: &str) -> TsText {
    TsText {
        ptr: text.as_ptr(),
        len: text.len(),
    }
}

fn array_of<T>(items: &[T]) -> (*const T, usize) {
    if items.is_empty() {
        (std::ptr::null(), 0)
    } else {
        (items.as_ptr(), items.len())
    }
}

impl Lent {
    /// The C step of a SQL check's step, borrowing from `self`.
    pub fn sql(&mut self, step: SqlStep) -> TsGuardStep {
        match step {
            SqlStep::Execute { sql, params } => self.statement(TsStepKind::Execute, sql, params),
            SqlStep::Query { sql, params } => self.statement(TsStepKind::Query, sql, params),
            SqlStep::Done(verdict) => self.done(verdict),
        }
    }

    /// The C step of an object machine's step, borrowing from `self`.
    pub fn object(&mut self, step: ObjectStep) -> TsGuardStep {
        match step {
            ObjectStep::List { prefix } => self.keyed(TsStepKind::List, prefix),
            ObjectStep::Put { key, metadata } => {
                self.metadata = metadata;
                self.metadata_pairs = self
                    .metadata
                    .iter()
                    .map(|(k, v)| TsPair {
                        key: text_of(k),
                        value: text_of(v),
                    })
                    .collect();
                let (metadata, metadata_len) = array_of(&self.metadata_pairs);
                TsGuardStep {
                    metadata,
                    metadata_len,
                    ..self.keyed(TsStepKind::Put, key)
                }
            }
            ObjectStep::Delete { key } => self.keyed(TsStepKind::Delete, key),
            ObjectStep::Get { key } => self.keyed(TsStepKind::Get, key),
            ObjectStep::Done(verdict) => self.done(verdict),
        }
    }

    /// The C step of a Redis guard's step, borrowing from `self`.
    pub fn redis(&mut self, step: RedisStep) -> TsGuardStep {
        match step {
            RedisStep::Eval { script, keys, args } => {
                self.keys = keys;
                self.key_texts = self.keys.iter().map(|k| text_of(k)).collect();
                let (keys, keys_len) = array_of(&self.key_texts);
                self.params = args;
                self.param_texts = self.params.iter().map(|p| text_of(p)).collect();
                let (params, params_len) = array_of(&self.param_texts);
                self.text = script;
                TsGuardStep {
                    kind: TsStepKind::Eval,
                    text: text_of(&self.text),
                    params,
                    params_len,
                    keys,
                    keys_len,
                    ..empty(TsStepKind::Done)
                }
            }
            RedisStep::Done(verdict) => self.done(verdict),
        }
    }

    /// The C step of the DynamoDB guard's step, borrowing from `self`.
    pub fn dynamo(&mut self, step: DynamoStep) -> TsGuardStep {
        let (kind, table, resource, params) = match step {
            DynamoStep::Transact(put) => (
                TsStepKind::Transact,
                put.table,
                put.resource,
                vec![put.fence, put.digits.to_string()],
            ),
            DynamoStep::Read { table, resource } => {
                (TsStepKind::ReadItem, table, resource, Vec::new())
            }
            DynamoStep::Done(verdict) => return self.done(verdict),
        };
        self.keys = vec![resource];
        self.key_texts = self.keys.iter().map(|k| text_of(k)).collect();
        let (keys, keys_len) = array_of(&self.key_texts);
        self.params = params;
        self.param_texts = self.params.iter().map(|p| text_of(p)).collect();
        let (params, params_len) = array_of(&self.param_texts);
        self.text = Cow::Owned(table);
        TsGuardStep {
            kind,
            text: text_of(&self.text),
            params,
            params_len,
            keys,
            keys_len,
            ..empty(TsStepKind::Done)
        }
    }

    /// The C step of a versioned store's guard's step, borrowing from
    /// `self`; `metadata_key` is the store's key of the fence, which a read
    /// names too.
    pub fn versioned(&mut self, step: VersionedStep, metadata_key: &'static str) -> TsGuardStep {
        let (kind, key, params) = match step {
            VersionedStep::Read => (TsStepKind::ReadObject, metadata_key, Vec::new()),
            VersionedStep::Put {
                condition,
                metadata_key,
                fence,
            } => {
                let params = match condition {
                    Condition::Absent => vec![fence],
                    Condition::Version(version) => vec![fence, version],
                };
                (TsStepKind::PutVersioned, metadata_key, params)
            }
            VersionedStep::Done(verdict) => return self.done(verdict),
        };
        self.params = params;
        self.param_texts = self.params.iter().map(|p| text_of(p)).collect();
        let (params, params_len) = array_of(&self.param_texts);
        self.text = Cow::Borrowed(key);
        TsGuardStep {
            kind,
            text: text_of(&self.text),
            params,
            params_len,
            ..empty(TsStepKind::Done)
        }
    }

    fn statement(
        &mut self,
        kind: TsStepKind,
        sql: &'static str,
        params: Vec<String>,
    ) -> TsGuardStep {
        self.params = params;
        self.param_texts = self.params.iter().map(|p| text_of(p)).collect();
        let (params, params_len) = array_of(&self.param_texts);
        self.text = Cow::Borrowed(sql);
        TsGuardStep {
            kind,
            text: text_of(sql),
            params,
            params_len,
            ..empty(TsStepKind::Done)
        }
    }

    fn keyed(&mut self, kind: TsStepKind, key: String) -> TsGuardStep {
        self.text = Cow::Owned(key);
        TsGuardStep {
            kind,
            text: text_of(&self.text),
            ..empty(TsStepKind::Done)
        }
    }

    fn done(&mut self, verdict: Verdict) -> TsGuardStep {
        let mut step = empty(TsStepKind::Done);
        let (kind, err) = match verdict {
            Verdict::Accepted => {
                step.verdict.kind = TsVerdictKind::Accepted;
                return step;
            }
            Verdict::Refused(err) => (TsVerdictKind::Refused, err),
            Verdict::Driver(err) => (TsVerdictKind::Driver, err),
        };
        step.verdict.kind = kind;
        if let Some(stale) = err.stale_detail() {
            self.stale_resource = stale.resource.clone();
            step.verdict.stale = true;
            step.verdict.stale_resource = text_of(&self.stale_resource);
            step.verdict.stale_fence = Fence::from_u128(stale.fence).into();
            step.verdict.stale_largest = Fence::from_u128(stale.largest).into();
        }
        let failure = Failure::from(err);
        step.verdict.code = failure.code();
        self.message = failure.into_message();
        step.verdict.message = text_of(&self.message);
        step
    }
}

fn nothing() -> TsText {
    TsText {
        ptr: std::ptr::null(),
        len: 0,
    }
}

fn empty(kind: TsStepKind) -> TsGuardStep {
    TsGuardStep {
        kind,
        text: nothing(),
        params: std::ptr::null(),
        params_len: 0,
        keys: std::ptr::null(),
        keys_len: 0,
        metadata: std::ptr::null(),
        metadata_len: 0,
        verdict: TsVerdict {
            kind: TsVerdictKind::Pending,
            code: TsCode::Ok,
            message: nothing(),
            stale: false,
            stale_resource: nothing(),
            stale_fence: TsFence::default(),
            stale_largest: TsFence::default(),
        },
    }
}
