module acambient

go 1.26.8

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/hajimehoshi/go-mp3 v0.3.4
	github.com/hajimehoshi/oto/v2 v2.4.3
	github.com/norunners/vert v0.0.0-20221203075838-106a353d42dd
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sync v0.25.0
)

require (
	github.com/ebitengine/purego v0.4.1 // indirect
	golang.org/x/sys v0.7.0 // indirect
)
