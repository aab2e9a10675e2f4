cmake_minimum_required(VERSION 3.22)
# Fails the build when a source includes a layer above its own (DESIGN.md). All targets share one
# include root per library, so the compiler alone cannot see a wrong direction; this scan does.
# Run as: cmake -DSOURCE_DIR=<repo> -P cmake/checklayers.cmake (the mcpscope_layercheck target).
#
# A layer may include its own folder, any folder of a lower rank, and the other folders of its own
# rank (DESIGN.md puts recovery, auth, fault, calllog and config side by side above the session).
# cmake/layering-exceptions.txt lists includes that are known and being removed: "<file> <layer>".

set(rank_jsonrpc 0)
set(rank_transport 1)
set(rank_session 2)
set(rank_recovery 3)
set(rank_auth 3)
set(rank_fault 3)
set(rank_calllog 3)
set(rank_config 3)
set(rank_engine 4)
set(rank_models 5)
# ui/ is one layer; its folders include each other freely.
foreach(folder calls composer dialogs mainwindow output presentation prompts resources result screenshot tasks)
    set(rank_${folder} 6)
endforeach()
# app/: the CLI library, what both mains share, and the mains.
foreach(folder cli common gui)
    set(rank_${folder} 7)
endforeach()

set(exceptions "")
if(EXISTS "${SOURCE_DIR}/cmake/layering-exceptions.txt")
    file(STRINGS "${SOURCE_DIR}/cmake/layering-exceptions.txt" lines ENCODING UTF-8)
    foreach(line IN LISTS lines)
        string(REGEX REPLACE "#.*" "" line "${line}")
        string(STRIP "${line}" line)
        if(line)
            string(REGEX REPLACE "[ \t]+" " " line "${line}")
            list(APPEND exceptions "${line}")
        endif()
    endforeach()
endif()

file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}"
    "${SOURCE_DIR}/core/*.h" "${SOURCE_DIR}/core/*.cpp"
    "${SOURCE_DIR}/ui/*.h" "${SOURCE_DIR}/ui/*.cpp"
    "${SOURCE_DIR}/app/*.h" "${SOURCE_DIR}/app/*.cpp")

set(violations "")
set(used_exceptions "")
foreach(source IN LISTS sources)
    # core/<layer>/…, ui/<folder>/…, app/<folder>/…
    if(NOT source MATCHES "^[a-z]+/([a-z]+)/")
        continue()
    endif()
    set(own "${CMAKE_MATCH_1}")
    if(NOT DEFINED rank_${own})
        list(APPEND violations "${source}: folder '${own}' has no layer in cmake/checklayers.cmake")
        continue()
    endif()
    file(STRINGS "${SOURCE_DIR}/${source}" lines ENCODING UTF-8 REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    # file(STRINGS) drops line numbers, so read the whole file to find them for the message.
    if(NOT lines)
        continue()
    endif()
    file(READ "${SOURCE_DIR}/${source}" text)
    # Brackets would keep CMake from splitting the list at the line ends below.
    string(REPLACE "[" "(" text "${text}")
    string(REPLACE "]" ")" text "${text}")
    string(REPLACE ";" "," text "${text}")
    string(REPLACE "\n" ";" text "${text}")
    set(number 0)
    foreach(line IN LISTS text)
        math(EXPR number "${number} + 1")
        if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([a-z]+)/")
            continue()
        endif()
        set(target "${CMAKE_MATCH_1}")
        if(NOT DEFINED rank_${target})
            continue()
        endif()
        if(rank_${target} GREATER rank_${own})
            if("${source} ${target}" IN_LIST exceptions)
                list(APPEND used_exceptions "${source} ${target}")
                continue()
            endif()
            list(APPEND violations
                "${source}:${number}: layer '${own}' includes '${target}', a layer above it: ${line}")
        endif()
    endforeach()
endforeach()

foreach(exception IN LISTS exceptions)
    if(NOT exception IN_LIST used_exceptions)
        list(APPEND violations "cmake/layering-exceptions.txt: '${exception}' no longer happens, remove the line")
    endif()
endforeach()

if(violations)
    list(JOIN violations "\n" report)
    message(FATAL_ERROR "Includes against the layers of DESIGN.md:\n${report}")
endif()
