package redisguard

import (
	"sync"

	"github.com/redis/go-redis/v9"
)

// scripts are the *redis.Script made of each script text the core gave
// (each holds its text and its SHA1, computed once), up to maxScripts of
// them; past that they are made anew.
type scripts struct {
	mu   sync.Mutex
	made map[string]*redis.Script
}

// maxScripts bounds how many distinct scripts a cache keeps.
const maxScripts = 256

var (
	// guarded holds the core's one script for Set, Del and HSet.
	guarded scripts
	// theirs holds the scripts made of the callers' own bodies.
	theirs scripts
)

// of is the script of text.
func (s *scripts) of(text string) *redis.Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	if script, ok := s.made[text]; ok {
		return script
	}
	if s.made == nil || len(s.made) >= maxScripts {
		s.made = map[string]*redis.Script{}
	}
	script := redis.NewScript(text)
	s.made[text] = script
	return script
}
