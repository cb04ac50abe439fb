module acme.example/invoicegen

go 1.19

require git.acme.internal/libs/money v1.3.0
