// The shared memory's directory (timing/shared_lines.h): which bursts it holds or is filling, what
// a read waits for, and which line it gives up when full.
#include <catch2/catch.hpp>

#include "timing/shared_lines.h"

using reusesim::timing::SharedLines;

// 128-byte lines of two 64-byte bursts throughout.

TEST_CASE("shared lines: a read misses until its bursts are filled, then waits for the fill, then hits", "[shared]") {
  SharedLines lines(128, 64, 4);
  CHECK_FALSE(lines.read(0, 256).hit);
  lines.begin_fill(0, 256);  // lines 0 and 1, both bursts each
  const SharedLines::Lookup filling = lines.read(0, 256);
  CHECK(filling.hit);
  CHECK(filling.waits_on == 0);  // the first line with a burst on its way
  CHECK(lines.filling(1));
  lines.end_fill(0, 256, 500);
  const SharedLines::Lookup held = lines.read(64, 128);  // line 0's second burst, line 1's first
  CHECK(held.hit);
  CHECK(held.waits_on == -1);
  CHECK(held.ready == 500);
  CHECK_FALSE(lines.filling(0));
}

TEST_CASE("shared lines: a line holds its bursts one by one", "[shared]") {
  SharedLines lines(128, 64, 4);
  lines.begin_fill(0, 64);
  lines.end_fill(0, 64, 10);
  CHECK(lines.read(0, 64).hit);
  CHECK_FALSE(lines.read(64, 64).hit);  // the same line's other burst was never read
  CHECK_FALSE(lines.read(0, 128).hit);
}

TEST_CASE("shared lines: a store written through is held at its time", "[shared]") {
  SharedLines lines(128, 64, 4);
  lines.write(256, 128, 42);
  const SharedLines::Lookup read = lines.read(256, 128);
  CHECK(read.hit);
  CHECK(read.ready == 42);
}

TEST_CASE("shared lines: a full memory replaces its least recently used line", "[shared]") {
  // Two lines of room: 0 and 1 held, a read of 0 makes 1 the least recently used, so line 2
  // replaces 1 and 0 stays.
  SharedLines lines(128, 64, 2);
  lines.write(0, 256, 1);
  CHECK(lines.read(0, 128).hit);
  lines.write(256, 128, 2);
  CHECK(lines.held_lines() == 2);
  CHECK(lines.read(0, 128).hit);
  CHECK_FALSE(lines.read(128, 128).hit);
  CHECK(lines.read(256, 128).hit);
}

TEST_CASE("shared lines: a line with a burst filling is never replaced", "[shared]") {
  // One line of room, filling: a store to another line finds no room and is not kept, and the fill
  // still lands.
  SharedLines lines(128, 64, 1);
  lines.begin_fill(0, 128);
  lines.write(128, 128, 5);
  CHECK_FALSE(lines.read(128, 128).hit);
  lines.end_fill(0, 128, 9);
  CHECK(lines.read(0, 128).ready == 9);
  lines.clear();
  CHECK(lines.held_lines() == 0);
  CHECK_FALSE(lines.read(0, 128).hit);
}

TEST_CASE("shared lines: held bytes run over held and filling bursts up to the first missing one", "[shared]") {
  // Line 0 held, line 1 filling, line 2's first burst held: from 0, 128 + 128 + 64 = 320 bytes;
  // capped at 200; from 64 (line 0's second burst) 256; from line 3, none.
  SharedLines lines(128, 64, 8);
  lines.write(0, 128, 1);
  lines.begin_fill(128, 128);
  lines.write(256, 64, 2);
  CHECK(lines.held_bytes(0, 1024) == 320);
  CHECK(lines.held_bytes(0, 200) == 200);
  CHECK(lines.held_bytes(64, 1024) == 256);
  CHECK(lines.held_bytes(384, 1024) == 0);
}
