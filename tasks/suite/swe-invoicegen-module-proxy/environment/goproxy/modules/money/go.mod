module git.acme.internal/libs/money

go 1.19
