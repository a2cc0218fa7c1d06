module acambient

go 1.26.8
