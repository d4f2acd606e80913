//! `NativeRedisCheck`: the core's guarded Redis write ([`RedisCheck`]) for
//! lib/redis.js, which runs the script its one step gives on the caller's
//! own client (ioredis or node-redis) and reports the reply or the
//! client's error. Its steps are [`NativeGuardStep`]s: `eval` (`script`,
//! `keys`, `args`), then `done`.

use crate::error::to_napi;
use crate::fence::to_fence;
use crate::guard_step::{done, step, NativeDriverFailure, NativeGuardStep};
use napi::bindgen_prelude::BigInt;
use napi_derive::napi;
use tinystore::guard::redis_check::{RedisCheck, RedisObserved, RedisStep, RedisWrite};
use tinystore::{Code, Error};

/// One guarded write of a fence to a Redis key.
#[napi]
pub struct NativeRedisCheck {
    inner: RedisCheck,
}

fn made(key: String, fence: BigInt, write: RedisWrite) -> napi::Result<NativeRedisCheck> {
    let fence = to_fence(&fence)?;
    Ok(NativeRedisCheck {
        inner: RedisCheck::new(&key, fence, write),
    })
}

/// The JS step of the machine's step.
fn redis_step(from: RedisStep) -> NativeGuardStep {
    match from {
        RedisStep::Eval { script, keys, args } => NativeGuardStep {
            script: Some(script.into_owned()),
            keys: Some(keys),
            args: Some(args),
            ..step("eval")
        },
        RedisStep::Done(verdict) => done(verdict),
    }
}

#[napi]
impl NativeRedisCheck {
    /// `SET key value`, guarded by `fence`.
    #[napi(factory)]
    pub fn set(key: String, value: String, fence: BigInt) -> napi::Result<NativeRedisCheck> {
        made(key, fence, RedisWrite::Set(value))
    }

    /// `DEL key`, guarded by `fence`; the fence stays recorded.
    #[napi(factory)]
    pub fn del(key: String, fence: BigInt) -> napi::Result<NativeRedisCheck> {
        made(key, fence, RedisWrite::Del)
    }

    /// `HSET key field value ...` of `fields`, each `[field, value]`,
    /// guarded by `fence`.
    #[napi(factory)]
    pub fn hset(
        key: String,
        fields: Vec<Vec<String>>,
        fence: BigInt,
    ) -> napi::Result<NativeRedisCheck> {
        let mut pairs = Vec::with_capacity(fields.len());
        for pair in fields {
            let [field, value] = <[String; 2]>::try_from(pair).map_err(|pair| {
                to_napi(Error::new(
                    Code::Internal,
                    format!(
                        "the Redis guard's JS layer gave a field of {} texts, not 2",
                        pair.len()
                    ),
                ))
            })?;
            pairs.push((field, value));
        }
        made(key, fence, RedisWrite::HSet(pairs))
    }

    /// The caller's own Lua `body`, run behind the check with `KEYS` the
    /// data key then `keys` and `ARGV` `args`, guarded by `fence`.
    #[napi(factory)]
    pub fn script(
        key: String,
        body: String,
        keys: Vec<String>,
        args: Vec<String>,
        fence: BigInt,
    ) -> napi::Result<NativeRedisCheck> {
        made(key, fence, RedisWrite::Script { body, keys, args })
    }

    /// The first step (`eval`), or the end for bad input.
    #[napi]
    pub fn start(&mut self) -> NativeGuardStep {
        redis_step(self.inner.start())
    }

    /// The end, after the script answered `reply` (each element as text).
    #[napi]
    pub fn reply(&mut self, reply: Vec<String>) -> NativeGuardStep {
        redis_step(self.inner.observe(RedisObserved::Reply(reply)))
    }

    /// The end, after the call failed in the client, as it reported.
    #[napi]
    pub fn failed(&mut self, failure: NativeDriverFailure) -> NativeGuardStep {
        redis_step(self.inner.observe(RedisObserved::Failed(failure.into())))
    }
}
