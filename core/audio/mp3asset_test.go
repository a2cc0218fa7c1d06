package audio

// mp3Asset is the demo world's committed MP3 (core/demo/assets), used here
// as a real encoder's output.
const mp3Asset = "../demo/assets/wolf_howl.mp3"
