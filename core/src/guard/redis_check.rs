//! The Redis guard as a machine that does no I/O: one Lua script that
//! checks the fence recorded beside the data key, makes the write, and
//! records the fence, atomically (Redis runs a script alone). The binding
//! runs [`SCRIPT`] with the step's keys and arguments through its client's
//! script helper (which sends `EVALSHA` and, on `NOSCRIPT`, `EVAL`, so the
//! script is loaded once and again after a restart or `SCRIPT FLUSH`) and
//! hands back the reply.
//!
//! Redis 8.4's and Valkey 8.1's `SET ... IFEQ` compare for equality only:
//! "no larger fence recorded" needs the script.
//!
//! ```
//! use tinystore::guard::redis_check::{RedisCheck, RedisObserved, RedisStep, RedisWrite};
//! use tinystore::guard::Verdict;
//! use tinystore::Fence;
//! let mut check = RedisCheck::new("chats/42", Fence::from_u128(7), RedisWrite::Set("summary".into()));
//! let RedisStep::Eval { keys, args, .. } = check.start() else { unreachable!() };
//! assert_eq!(keys, ["{chats/42}:tinystore-fence", "chats/42"]);
//! assert_eq!(args[1], "set");
//! // ... the binding runs the script: it answers ["accepted"].
//! assert_eq!(check.observe(RedisObserved::Reply(vec!["accepted".into()])), RedisStep::Done(Verdict::Accepted));
//! ```

use super::decide::refused_in;
use super::driver::DriverFailure;
use super::redis_layout::{register_key, same_slot};
use super::resource::check_resource;
use super::verdict::Verdict;
use crate::error::Error;
use crate::fence::Fence;
use std::borrow::Cow;

/// The check every guard script begins with. `KEYS[1]` is the register,
/// `ARGV[1]` the fence's 40 digits. It ends the script with `{"refused",
/// recorded}` (the register's text: a larger fence, or not 40 digits), or
/// `{"refused", "(not a string)"}` for a register of another type; nothing
/// is written then.
macro_rules! check {
    () => {
        r#"local recorded = redis.pcall('GET', KEYS[1])
if type(recorded) == 'table' and recorded.err then
  return {'refused', '(not a string)'}
end
if recorded then
  if string.len(recorded) ~= 40 or not string.match(recorded, '^%d+$') or recorded > ARGV[1] then
    return {'refused', recorded}
  end
end
"#
    };
}
const CHECK: &str = check!();

/// The guard's script for its own writes: the check every guard script
/// begins with (`KEYS[1]` the register, `ARGV[1]` the fence's 40 digits;
/// a refusal answers `{"refused", recorded}`), then the write.
/// `KEYS[2]` is the data key, `ARGV[2]` the write (`set`, `del`, `hset`),
/// `ARGV[3..]` its arguments. It answers `{"accepted"}`. The write comes
/// before the record: a write Redis refuses (a key of another type) ends
/// the script with its error and changes nothing.
pub const SCRIPT: &str = concat!(
    check!(),
    r#"local op = ARGV[2]
if op == 'set' then
  redis.call('SET', KEYS[2], ARGV[3])
elseif op == 'del' then
  redis.call('DEL', KEYS[2])
elseif op == 'hset' then
  redis.call('HSET', KEYS[2], unpack(ARGV, 3))
else
  return redis.error_reply('tinystore guard: unknown write ' .. tostring(op))
end
redis.call('SET', KEYS[1], ARGV[1])
return {'accepted'}
"#
);

/// What follows [`CHECK`] in a script that runs the user's own body: the
/// record first (so a body that fails half-way has left its writes under
/// the fence, and no smaller fence can write after them), then the body as
/// a function of its own `KEYS` (the data key, then the caller's keys) and
/// `ARGV` (the caller's arguments); its reply comes back as the second
/// element of `{"accepted", reply}`.
const BEHIND_CHECK: &str = r#"redis.call('SET', KEYS[1], ARGV[1])
local keys, args = {}, {}
for i = 2, #KEYS do keys[i - 1] = KEYS[i] end
for i = 2, #ARGV do args[i - 1] = ARGV[i] end
local reply = (function(KEYS, ARGV)
"#;

/// The script that runs the user's Lua `body` behind the check.
pub fn script_behind_check(body: &str) -> String {
    format!("{CHECK}{BEHIND_CHECK}{body}\nend)(keys, args)\nreturn {{'accepted', reply}}\n")
}

/// The write a guarded call makes to the data key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedisWrite {
    /// `SET key value`.
    Set(String),
    /// `DEL key`; the register keeps the fence, so a late write stays
    /// refused.
    Del,
    /// `HSET key field value [field value ...]`.
    HSet(Vec<(String, String)>),
    /// The caller's own Lua `body`, run behind the check with `KEYS` the
    /// data key then `keys` (all in the data key's hash slot) and `ARGV`
    /// `args`; the fence is recorded before it runs.
    Script {
        /// The Lua text, as it would be given to `EVAL`.
        body: String,
        /// The keys it touches besides the data key.
        keys: Vec<String>,
        /// Its arguments.
        args: Vec<String>,
    },
}

/// What the binding does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedisStep {
    /// Run `script` with `keys` and `args` (its client's script helper:
    /// `EVALSHA`, then `EVAL` on `NOSCRIPT`) and observe its reply
    /// ([`RedisObserved::Reply`]: each element as text; for a
    /// [`RedisWrite::Script`], the first element is enough, and the second
    /// is the caller's reply to hand back when accepted).
    Eval {
        /// The script's text: [`SCRIPT`], or [`script_behind_check`]'s.
        script: Cow<'static, str>,
        /// The register key, then the data key (one hash slot).
        keys: Vec<String>,
        /// The fence's 40 digits, the write, its arguments.
        args: Vec<String>,
    },
    /// The protocol ended.
    Done(Verdict),
}

/// What the binding observed of the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedisObserved {
    /// Its reply, each element as text.
    Reply(Vec<String>),
    /// The call failed in the client (its error, described).
    Failed(DriverFailure),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Ran,
    Done,
}

/// One guarded write of `fence` to the data key `key` (the resource).
#[derive(Debug, Clone)]
pub struct RedisCheck {
    key: String,
    fence: Fence,
    write: RedisWrite,
    state: State,
}

impl RedisCheck {
    /// A guarded `write` of `fence` to `key`.
    pub fn new(key: &str, fence: Fence, write: RedisWrite) -> RedisCheck {
        RedisCheck {
            key: key.to_string(),
            fence,
            write,
            state: State::Start,
        }
    }

    /// The first step: the script, or the end when the key is not a
    /// resource (empty, over 1,024 bytes, a NUL), no register can share its
    /// hash slot, an `HSET` has no field, or a script is empty or touches a
    /// key in another hash slot (`invalid`, before any call).
    pub fn start(&mut self) -> RedisStep {
        if self.state != State::Start {
            return self.misuse("start");
        }
        let register = match self.checked() {
            Ok(register) => register,
            Err(err) => return self.end(Verdict::Refused(err)),
        };
        let mut args = vec![self.fence.text()];
        let mut keys = vec![register, self.key.clone()];
        let mut script = Cow::Borrowed(SCRIPT);
        match &self.write {
            RedisWrite::Set(value) => args.extend(["set".to_string(), value.clone()]),
            RedisWrite::Del => args.push("del".to_string()),
            RedisWrite::HSet(fields) => {
                args.push("hset".to_string());
                for (field, value) in fields {
                    args.extend([field.clone(), value.clone()]);
                }
            }
            RedisWrite::Script {
                body,
                keys: theirs,
                args: given,
            } => {
                script = Cow::Owned(script_behind_check(body));
                keys.extend(theirs.iter().cloned());
                args.extend(given.iter().cloned());
            }
        }
        self.state = State::Ran;
        RedisStep::Eval { script, keys, args }
    }

    fn checked(&self) -> crate::Result<String> {
        check_resource(&self.key)?;
        if matches!(&self.write, RedisWrite::HSet(fields) if fields.is_empty()) {
            return Err(Error::invalid(format!(
                "a guarded HSET of Redis key {:?} was given no field",
                self.key
            )));
        }
        if let RedisWrite::Script { body, keys, .. } = &self.write {
            if body.trim().is_empty() {
                return Err(Error::invalid(format!(
                    "a guarded script for Redis key {:?} was given no Lua text",
                    self.key
                )));
            }
            same_slot(&self.key, keys.iter().map(String::as_str))?;
        }
        register_key(&self.key)
    }

    /// The step after `observed`, the outcome of the script.
    pub fn observe(&mut self, observed: RedisObserved) -> RedisStep {
        if self.state != State::Ran {
            return self.misuse(&format!("{observed:?}"));
        }
        let verdict = match observed {
            RedisObserved::Failed(failure) => {
                Verdict::Driver(failure.error(&format!("guarding Redis key {:?}", self.key)))
            }
            RedisObserved::Reply(reply) => self.decided(&reply),
        };
        self.end(verdict)
    }

    fn decided(&self, reply: &[String]) -> Verdict {
        let register = register_key(&self.key).unwrap_or_default();
        match reply {
            [word] if word == "accepted" => Verdict::Accepted,
            [word, _] if word == "accepted" && self.runs_theirs() => Verdict::Accepted,
            [word, recorded] if word == "refused" => {
                match refused_in(&register, &self.key, self.fence, Some(recorded)) {
                    Ok(()) => Verdict::Refused(Error::internal(format!(
                        "the Redis guard refused fence {} for {:?} with {recorded:?} recorded, which is not larger",
                        self.fence, self.key
                    ))),
                    Err(err) => Verdict::Refused(err),
                }
            }
            other => Verdict::Refused(Error::internal(format!(
                "the Redis guard's script answered {other:?} for {:?}; is another script loaded under its SHA?",
                self.key
            ))),
        }
    }

    fn runs_theirs(&self) -> bool {
        matches!(self.write, RedisWrite::Script { .. })
    }

    fn end(&mut self, verdict: Verdict) -> RedisStep {
        self.state = State::Done;
        RedisStep::Done(verdict)
    }

    fn misuse(&mut self, what: &str) -> RedisStep {
        let state = self.state;
        self.end(Verdict::Refused(Error::internal(format!(
            "the Redis guard of {:?} was given {what} in state {state:?}",
            self.key
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;

    fn started(write: RedisWrite) -> (RedisCheck, Vec<String>, Vec<String>) {
        let mut check = RedisCheck::new("user:{42}:profile", Fence::from_u128(7), write);
        let RedisStep::Eval { keys, args, script } = check.start() else {
            panic!("no script")
        };
        assert_eq!(script, SCRIPT);
        (check, keys, args)
    }

    fn refused(step: RedisStep) -> Error {
        match step {
            RedisStep::Done(Verdict::Refused(err)) => err,
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn each_write_is_the_fence_the_word_and_its_arguments() {
        let fence = Fence::from_u128(7).text();
        let (_, keys, args) = started(RedisWrite::Set("v".into()));
        assert_eq!(
            keys,
            ["user:{42}:profile:tinystore-fence", "user:{42}:profile"]
        );
        assert_eq!(args, [fence.as_str(), "set", "v"]);
        let (_, _, args) = started(RedisWrite::Del);
        assert_eq!(args, [fence.as_str(), "del"]);
        let fields = vec![("a".into(), "1".into()), ("b".into(), "2".into())];
        let (_, _, args) = started(RedisWrite::HSet(fields));
        assert_eq!(args, [fence.as_str(), "hset", "a", "1", "b", "2"]);
    }

    #[test]
    fn their_script_runs_behind_the_check_with_its_own_keys_and_arguments() {
        let write = RedisWrite::Script {
            body: "return redis.call('INCR', KEYS[2])".into(),
            keys: vec!["user:{42}:visits".into()],
            args: vec!["a".into()],
        };
        let mut check = RedisCheck::new("user:{42}:profile", Fence::from_u128(7), write);
        let RedisStep::Eval { keys, args, script } = check.start() else {
            panic!("no script")
        };
        assert_eq!(
            keys,
            [
                "user:{42}:profile:tinystore-fence",
                "user:{42}:profile",
                "user:{42}:visits"
            ]
        );
        assert_eq!(args, [Fence::from_u128(7).text().as_str(), "a"]);
        assert!(script.starts_with(CHECK), "{script}");
        assert!(script.contains("return redis.call('INCR', KEYS[2])\nend)(keys, args)"));
        let reply = vec!["accepted".into(), "3".into()];
        assert_eq!(
            check.observe(RedisObserved::Reply(reply)),
            RedisStep::Done(Verdict::Accepted)
        );
    }

    #[test]
    fn their_script_in_another_slot_or_empty_is_invalid() {
        for (body, key) in [("return 1", "user:{43}:visits"), (" \n", "user:{42}:x")] {
            let write = RedisWrite::Script {
                body: body.into(),
                keys: vec![key.into()],
                args: vec![],
            };
            let mut check = RedisCheck::new("user:{42}:profile", Fence::from_u128(7), write);
            let err = refused(check.start());
            assert_eq!(err.code(), Code::Invalid, "{body:?} {key}");
        }
    }

    #[test]
    fn a_larger_fence_is_stale_and_a_malformed_one_corrupt() {
        let (mut check, keys, _) = started(RedisWrite::Del);
        let larger = Fence::from_u128(9).text();
        let err = refused(check.observe(RedisObserved::Reply(vec!["refused".into(), larger])));
        assert_eq!(err.code(), Code::Stale);
        let stale = err.stale_detail().unwrap();
        assert_eq!(
            (stale.resource.as_str(), stale.fence, stale.largest),
            ("user:{42}:profile", 7, 9)
        );
        let (mut check, _, _) = started(RedisWrite::Del);
        let reply = vec!["refused".into(), "(not a string)".into()];
        let err = refused(check.observe(RedisObserved::Reply(reply)));
        assert_eq!(err.code(), Code::Corrupt);
        assert!(err.message().contains(&keys[0]), "{}", err.message());
    }

    #[test]
    fn bad_input_is_invalid_before_any_call() {
        for (key, write) in [
            ("", RedisWrite::Del),
            ("a}b", RedisWrite::Del),
            ("k", RedisWrite::HSet(vec![])),
        ] {
            let mut check = RedisCheck::new(key, Fence::from_u128(7), write);
            assert_eq!(refused(check.start()).code(), Code::Invalid, "{key:?}");
        }
    }

    #[test]
    fn a_failure_is_the_drivers_and_an_odd_reply_internal() {
        let (mut check, _, _) = started(RedisWrite::Del);
        let failure = DriverFailure {
            error_code: Some("ECONNREFUSED".into()),
            message: "connection refused".into(),
            ..DriverFailure::default()
        };
        let RedisStep::Done(Verdict::Driver(err)) = check.observe(RedisObserved::Failed(failure))
        else {
            panic!("not the driver's")
        };
        assert_eq!(err.code(), Code::Unavailable);
        let (mut check, _, _) = started(RedisWrite::Del);
        let err = refused(check.observe(RedisObserved::Reply(vec!["OK".into()])));
        assert_eq!(err.code(), Code::Internal);
        assert!(matches!(refused(check.start()).code(), Code::Internal));
    }
}
