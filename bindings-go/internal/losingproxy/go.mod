module tinystore.dev/go/internal/losingproxy

go 1.26.0
