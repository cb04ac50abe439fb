module corp.example/ratelimit

go 1.19
