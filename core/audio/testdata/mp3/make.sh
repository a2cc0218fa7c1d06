#!/bin/sh
# Regenerates this directory: MPEG layer 3 streams encoded by lame and their
# reference decodes by mpg123, an independent decoder, for mp3_test.go. Run it
# here (sh make.sh) with sox 14.4.2, lame 3.100 and mpg123 1.31.2 (Debian 12:
# apt-get install sox lame mpg123). Every tool is deterministic (sox -R seeds
# its noise and dither), so the output is byte for byte what is committed.
#
#   mono44k    MPEG-1 mono 44100 Hz 64 kbit/s: a sweep 200 Hz-9 kHz
#   stereo22k  MPEG-2 joint stereo 22050 Hz 64 kbit/s: a 440 Hz tone left,
#              pink noise right
#   stereo44k  MPEG-1 joint stereo 44100 Hz 128 kbit/s: a sweep 300 Hz-6 kHz
#              left, a 660 Hz tone right
#   mono11k    MPEG-2.5 mono 11025 Hz 24 kbit/s (a sweep): go-mp3 refuses
#              MPEG-2.5, so it has no reference; the test checks the refusal
#   wolf_howl  the reference decode of the demo's ../../../demo/assets/wolf_howl.mp3
#
# lame: -t writes no Xing/LAME tag and --noreplaygain no gain, so each file is
# raw MPEG frames, as a retail Wave's data is (dat-format §5). mpg123:
# --no-gapless keeps the decoder's delay and the encoder's padding (go-mp3
# trims neither), --cpu generic is its portable C synthesis, -e s16 16 bits.
set -e
ref() { mpg123 -q --cpu generic --no-gapless -e s16 -w "$1.ref.wav" "${2:-$1.mp3}"; }

sox -R -n -r 44100 -c 1 -b 16 src.wav synth 0.3 sine 200-9000 gain -3 fade 0.01 0.3 0.02
lame --quiet -t --noreplaygain -m m -b 64 src.wav mono44k.mp3
ref mono44k

sox -R -n -r 22050 -c 2 -b 16 src.wav synth 0.3 sine 440 pinknoise gain -6 fade 0.01 0.3 0.02
lame --quiet -t --noreplaygain -m j -b 64 src.wav stereo22k.mp3
ref stereo22k

sox -R -n -r 44100 -c 2 -b 16 src.wav synth 0.3 sine 300-6000 sine 660 gain -4 fade 0.01 0.3 0.02
lame --quiet -t --noreplaygain -m j -b 128 src.wav stereo44k.mp3
ref stereo44k

sox -R -n -r 11025 -c 1 -b 16 src.wav synth 0.3 sine 200-3000 gain -3 fade 0.01 0.3 0.02
lame --quiet -t --noreplaygain -m m -b 24 src.wav mono11k.mp3

ref wolf_howl ../../../demo/assets/wolf_howl.mp3
rm src.wav
