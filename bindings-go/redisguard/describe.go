package redisguard

import (
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"

	"tinystore.dev/go/internal/guardio"
	"tinystore.dev/go/internal/native"
)

// describe is what go-redis reports of err, for the core to classify: an
// error reply's code, its first word (WRONGTYPE, NOPERM, NOAUTH,
// LOADING, ...); else what guardio reads of any error (a socket's errno
// name such as ECONNREFUSED, or "connection" for a lost connection); and
// its text.
func describe(err error) native.DriverFailure {
	f := guardio.Describe(err)
	var reply redis.Error
	if errors.As(err, &reply) {
		if code, _, _ := strings.Cut(reply.Error(), " "); code != "" {
			f.ErrorCode = &code
		}
	}
	return f
}
