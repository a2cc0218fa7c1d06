module acambient

go 1.26.8

require github.com/hajimehoshi/go-mp3 v0.3.4
