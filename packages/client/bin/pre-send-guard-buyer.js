#!/usr/bin/env node
// The `pre-send-guard-buyer` executable. A committed file (not the build output itself), so npm
// links it when a workspace install runs before `prepare` has compiled dist/.
import '../dist/cli/bin.js'
