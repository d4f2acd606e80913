//! Values as a person reads them: durations as `1.2s`, epochs as UTC dates,
//! fences with their epoch's date and their count beside the decimal.

use tinystore::Fence;

/// A duration in milliseconds, shortened: `850ms`, `1.2s`, `15s`, `2m5s`,
/// `1h30m`. Rounded down, so a time left is never overstated.
pub fn duration(ms: u64) -> String {
    if ms < 1000 {
        return format!("{ms}ms");
    }
    if ms < 60_000 {
        let (s, tenths) = (ms / 1000, ms % 1000 / 100);
        return match tenths {
            0 => format!("{s}s"),
            t => format!("{s}.{t}s"),
        };
    }
    let s = ms / 1000;
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    let mut out = String::new();
    for (n, unit) in [(h, "h"), (m, "m"), (s, "s")] {
        if n > 0 {
            out += &format!("{n}{unit}");
        }
    }
    out
}

/// Milliseconds since 1970 as an ISO-8601 UTC date with milliseconds:
/// `2026-11-30T09:48:09.619Z`.
pub fn date(epoch_ms: u64) -> String {
    let (days, ms) = (epoch_ms / 86_400_000, epoch_ms % 86_400_000);
    let (y, m, d) = civil(days);
    let (h, min, s, milli) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z")
}

/// A fence: its decimal, then its epoch's date and its count,
/// `33130944305371470549764018274306 (2026-11-30T09:48:09.619Z #2)`.
pub fn fence(fence: Fence) -> String {
    format!("{fence} ({} #{})", date(fence.epoch()), fence.count())
}

/// The year, month and day of a day counted from 1970-01-01 (the proleptic
/// Gregorian calendar; H. Hinnant's `civil_from_days`).
fn civil(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let (era, doe) = (z / 146_097, z % 146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::{date, duration, fence};
    use tinystore::Fence;

    /// Checks that `show` gives each case's text for its number.
    fn shows(show: fn(u64) -> String, cases: &[(u64, &str)]) {
        for &(n, shown) in cases {
            assert_eq!(show(n), shown, "{n}");
        }
    }

    #[test]
    fn durations_read_as_a_person_says_them() {
        let cases = [
            (0, "0ms"),
            (850, "850ms"),
            (999, "999ms"),
            (1000, "1s"),
            (1299, "1.2s"),
            (14_210, "14.2s"),
            (15_000, "15s"),
            (59_999, "59.9s"),
            (60_000, "1m"),
            (125_000, "2m5s"),
            (3_600_000, "1h"),
            (5_400_000, "1h30m"),
            (3_605_000, "1h5s"),
        ];
        shows(duration, &cases);
        assert!(duration(u64::MAX).ends_with('s'));
    }

    #[test]
    fn dates_are_utc_iso_8601() {
        // Each checked against Python's datetime.fromtimestamp(ms / 1000, UTC).
        let cases = [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_796_032_089_619, "2026-11-30T09:48:09.619Z"),
            (4_102_444_799_999, "2099-12-31T23:59:59.999Z"),
            (4_107_542_399_000, "2100-02-28T23:59:59.000Z"),
            (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        ];
        shows(date, &cases);
        assert!(date(u64::MAX).ends_with('Z'));
    }

    #[test]
    fn a_fence_shows_its_epochs_date_and_count_beside_the_decimal() {
        let f = Fence::new(1_796_032_089_619, 2);
        assert_eq!(
            fence(f),
            format!("{} (2026-11-30T09:48:09.619Z #2)", f.get())
        );
        assert_eq!(
            fence(Fence::new(0, u64::MAX)),
            format!("{} (1970-01-01T00:00:00.000Z #{})", u64::MAX, u64::MAX)
        );
    }
}
