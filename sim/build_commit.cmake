# Writes OUTPUT (build_commit.h: #define WARMSCHED_BUILD_COMMIT "<sha>[-dirty]" or "unknown") from the
# git work tree at SOURCE_DIR, leaving the file alone when its text would not change.
execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git diff --quiet HEAD WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE dirty)
  if(NOT dirty EQUAL 0)
    string(APPEND commit "-dirty")
  endif()
endif()
set(text "// Written by sim/build_commit.cmake at build time.\n#define WARMSCHED_BUILD_COMMIT \"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()
