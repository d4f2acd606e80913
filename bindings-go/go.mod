module tinystore.dev/go

go 1.24
