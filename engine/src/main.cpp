// main: the loop of cipherbench-engine, the native runner speaking protocol v1 (docs/protocol.md):
// one JSON request per line on stdin, one JSON answer per line on stdout; and its options.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cipherbench/adapter.h"
#include "dispatch.h"
#include "line_io.h"
#include "request.h"
#include "sha256.h"

using json = nlohmann::json;

int cb_taint_main(int argc, char** argv);  // taint.cpp

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
        std::cerr << "cipherbench-engine: native runner speaking cipherbench protocol v1 on stdin/stdout\n"
                     "  --check-adapters  check every adapter's contexts against the adapter contract\n"
                     "                    (engine/include/cipherbench/adapter.h); exit status 1 on a failure\n"
                     "  --taint IMPL PRIMITIVE key|plaintext\n"
                     "                    key setup, encryption and decryption with the secret marked undefined\n"
                     "                    for valgrind memcheck (taint.cpp); run under valgrind\n"
                     "  --notes FILE      add FILE's JSON object to every implementation's notes (variant builds)\n"
                     "  --sha256-impl     print which SHA-256 computes `fill` and `digest`: sha-ni or portable\n"
                     "                    (CIPHERBENCH_ENGINE_SHA=portable forces the portable code)\n";
        return 0;
    }
    if (argc == 2 && std::string(argv[1]) == "--sha256-impl") {
        std::cout << cb::sha256_impl() << '\n';
        return 0;
    }
    if (argc > 1 && std::string(argv[1]) == "--taint") return cb_taint_main(argc - 2, argv + 2);
    cb::Engine engine;
    if (argc > 1 && std::string(argv[1]) == "--check-adapters") return engine.check_adapters(std::cout) ? 1 : 0;
    if (argc == 3 && std::string(argv[1]) == "--notes") {
        try {
            engine.add_notes(argv[2]);
        } catch (const std::exception& e) {
            std::cerr << "cipherbench-engine: " << e.what() << '\n';
            return 2;
        }
    } else if (argc > 1) {
        std::cerr << "cipherbench-engine: unknown option '" << argv[1] << "' (see --help)\n";
        return 2;
    }
    std::string line, shorter;
    std::vector<uint8_t> input;
    while (std::getline(std::cin, line)) {
        json resp;
        json id = nullptr;
        try {
            json req;
            const bool decoded = cb::read_request(line, shorter, input, req);
            if (req.contains("id")) id = req["id"];
            if (req.value("op", "") == "quit") break;
            resp = engine.handle(req, decoded ? &input : nullptr);
        } catch (const json::parse_error& e) {
            resp = {{"status", "error"}, {"message", std::string("malformed request: not JSON (") + e.what() + ")"}};
        } catch (const cb::Unsupported& e) {
            resp = {{"status", "unsupported"}, {"message", e.what()}};
        } catch (const std::exception& e) {
            resp = {{"status", "error"}, {"message", e.what()}};
        }
        resp["id"] = id;
        cb::write_answer(std::cout, resp);  // resp.dump(-1, ' ', false, error_handler_t::replace)
        std::cout << '\n' << std::flush;
    }
    return 0;
}
