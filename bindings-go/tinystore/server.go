package tinystore

import "tinystore.dev/go/internal/native"

// Server serves a store from inside this program, as `tinystore serve DIR`
// does: other processes reach it with Open(dir) or Connect(server.Address()).
type Server struct {
	n *native.Server
}

// Serve opens the store directory dir (made if missing) and serves it to
// other processes on dir/tinystore.sock (mode 0600) until Close. It fails
// with ErrInUse when another process owns dir.
func Serve(dir string) (*Server, error) {
	n, err := native.Serve(dir)
	if err != nil {
		return nil, err
	}
	return &Server{n: n}, nil
}

// Address is the server's address for Connect: "unix:" and the socket's path.
func (s *Server) Address() string {
	return "unix:" + s.n.Socket
}

// Close stops serving cleanly: the socket is removed, every lease is
// released (its holder learns it lost it), every waiter fails with
// ErrClosed, and the store is closed. Idempotent.
func (s *Server) Close() error {
	return s.n.Close()
}
