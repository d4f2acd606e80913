module tinystore.dev/examples/fenced-service

go 1.26.0

require tinystore.dev/go v0.0.0

replace tinystore.dev/go => ../../../bindings-go
