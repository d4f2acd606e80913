package native

/*
#include "tinystore.h"
*/
import "C"

import (
	"runtime"
	"sync"
)

// Server is a running server's handle.
type Server struct {
	mu      sync.Mutex
	p       *C.TsServer
	cleanup runtime.Cleanup
	// Socket is the path of the server's Unix socket.
	Socket string
}

// Serve opens the store directory dir and serves it on its Unix socket.
func Serve(dir string) (*Server, error) {
	var p *C.TsServer
	var e C.TsError
	ptr, n := text(dir)
	if !C.ts_server_start(ptr, n, &p, &e) {
		return nil, failure(&e)
	}
	var buf [4096]byte
	size := int(C.ts_server_socket(p, (*C.uint8_t)(&buf[0]), C.size_t(len(buf))))
	s := &Server{p: p, Socket: string(buf[:min(size, len(buf))])}
	s.cleanup = runtime.AddCleanup(s, func(p *C.TsServer) { C.ts_server_free(p) }, p)
	return s, nil
}

// Close stops serving cleanly and frees the handle. Idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return end(s.p != nil, &s.cleanup,
		func(e *C.TsError) C.bool { return C.ts_server_shutdown(s.p, e) },
		func() { C.ts_server_free(s.p); s.p = nil })
}
