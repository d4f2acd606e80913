package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"tinystore.dev/go/locks"
)

// vectors is vectors/fences.json (the --vectors path), the parts this program reads.
type vectors struct {
	Cases []struct {
		Value string `json:"value"`
	} `json:"cases"`
	Ordered [][2]string `json:"ordered"`
	Invalid []string    `json:"invalid"`
}

// quoted is s as JSON with non-ASCII and HTML characters unescaped.
func quoted(s string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// fences prints the fence vectors through this language's API; see
// ../README.md.
func fences(a *args) error {
	path, ok := a.flags["vectors"]
	if !ok {
		return errors.New("--vectors FILE is required")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var v vectors
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, c := range v.Cases {
		f, err := locks.ParseFence(c.Value)
		if err != nil {
			return err
		}
		fmt.Printf("CASE %s %s %d %d\n", f, text(f), f.Epoch, f.Count)
	}
	for _, pair := range v.Ordered {
		x, err1 := locks.ParseFence(pair[0])
		y, err2 := locks.ParseFence(pair[1])
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		fmt.Printf("ORDERED %s %s %t %t\n", x, y, x.Less(y), text(x) < text(y))
	}
	for _, bad := range v.Invalid {
		code := ""
		var lerr *locks.Error
		if f, err := locks.ParseFence(bad); err == nil {
			code = "ACCEPTED:" + f.String()
		} else if errors.As(err, &lerr) {
			code = string(lerr.Code)
		} else {
			return err
		}
		q, err := quoted(bad)
		if err != nil {
			return err
		}
		fmt.Printf("INVALID %s %s\n", q, code)
	}
	return nil
}
