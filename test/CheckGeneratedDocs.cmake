# ctest docs.up-to-date: docs/generated/ must equal what add_mlir_doc writes
# from the TableGen files (scripts/update-docs.sh refreshes it).
file(GLOB generated RELATIVE ${BUILT} ${BUILT}/Dialects/*.md ${BUILT}/*.md)
set(stale "")
foreach(doc ${generated})
  get_filename_component(name ${doc} NAME)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
    ${BUILT}/${doc} ${COMMITTED}/${name} RESULT_VARIABLE differs)
  if(differs)
    list(APPEND stale ${name})
  endif()
endforeach()
if(NOT generated)
  message(FATAL_ERROR "no generated docs in ${BUILT}: build the mlir-doc target")
endif()
if(stale)
  message(FATAL_ERROR "docs/generated is stale for: ${stale}; run scripts/update-docs.sh")
endif()
