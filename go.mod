module acambient

go 1.26.8

require github.com/hajimehoshi/go-mp3 v0.3.4

require golang.org/x/sync v0.25.0 // indirect
