// Command mkmp3 regenerates core/demo/assets/wolf_howl.mp3, the demo world's
// one MP3 wave: it renders synth.WolfHowl (demo.WolfHowlB), writes it as a
// 16-bit WAV and encodes it with lame, mono at 48 kbit/s, no Xing/LAME tag
// and no ReplayGain, so the file is nothing but raw MPEG frames.
//
//	go run ./core/demo/internal/mkmp3   (from the module root; needs lame)
//
// core/audio checks go-mp3 against mpg123's decode of this file: after
// regenerating it, run core/audio/testdata/mp3/make.sh for the new reference.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"acambient/core/audio"
	"acambient/core/demo"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mkmp3:", err)
		os.Exit(1)
	}
}

func run() error {
	b := demo.WolfHowlB()
	s := make([]float32, len(b.S))
	for i, v := range b.S {
		s[i] = float32(v)
	}
	p := audio.NewPCM(b.Rate, 1, s)
	dir, err := os.MkdirTemp("", "mkmp3")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	wav := filepath.Join(dir, "howl.wav")
	f, err := os.Create(wav)
	if err != nil {
		return err
	}
	if err := audio.WriteWAV(f, p); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	out := filepath.Join("core", "demo", "assets", "wolf_howl.mp3")
	cmd := exec.Command("lame", "--quiet", "-t", "--noreplaygain", "-m", "m", "-b", "48", wav, out)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("lame: %w", err)
	}
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d bytes from %d samples at %d Hz\n", out, st.Size(), len(b.S), b.Rate)
	return nil
}
