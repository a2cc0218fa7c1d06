package demo

import "acambient/core/demo/spots"

// Landmark is a named listening spot (spots.Landmark).
type Landmark = spots.Landmark

// Landmarks are the demo's named spots, for tests, docs and the page.
var Landmarks = spots.Landmarks
