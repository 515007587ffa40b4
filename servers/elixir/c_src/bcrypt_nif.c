/*
 * bcrypt for Arena.Bcrypt over the system's libxcrypt ($2b$). Both functions
 * run on dirty CPU schedulers: one hash takes milliseconds to seconds, far
 * beyond the 1 ms a NIF may hold a normal scheduler.
 */
#include <crypt.h>
#include <erl_nif.h>
#include <string.h>
#include <sys/random.h>

/* bcrypt reads at most 72 bytes; Elixir refuses longer passwords first. */
#define MAX_PASSWORD 72
#define SALT_BYTES 16

static ERL_NIF_TERM error_tuple(ErlNifEnv *env, const char *reason) {
    return enif_make_tuple2(env, enif_make_atom(env, "error"), enif_make_atom(env, reason));
}

/* Copies a binary to a C string; fails on embedded NUL, which crypt(3) would
 * silently treat as the end of the password. */
static int c_string(ErlNifEnv *env, ERL_NIF_TERM term, char *out, size_t size) {
    ErlNifBinary bin;
    if (!enif_inspect_binary(env, term, &bin) || bin.size >= size || memchr(bin.data, 0, bin.size))
        return 0;
    memcpy(out, bin.data, bin.size);
    out[bin.size] = '\0';
    return 1;
}

/* crypt_rn into a heap buffer: struct crypt_data is 32 KiB, too much for a
 * scheduler's stack. Returns the hash length, or 0 on failure. */
static size_t run_crypt(const char *password, const char *setting, char *hash) {
    struct crypt_data *data = enif_alloc(sizeof *data);
    size_t len = 0;
    if (data == NULL)
        return 0;
    memset(data, 0, sizeof *data);
    if (crypt_rn(password, setting, data, sizeof *data) != NULL && data->output[0] != '*') {
        len = strlen(data->output);
        memcpy(hash, data->output, len + 1);
    }
    explicit_bzero(data, sizeof *data);
    enif_free(data);
    return len;
}

/* hash(password, cost) -> {:ok, hash} | {:error, reason} */
static ERL_NIF_TERM hash_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    char password[MAX_PASSWORD + 1], setting[CRYPT_GENSALT_OUTPUT_SIZE], hash[CRYPT_OUTPUT_SIZE];
    unsigned char salt[SALT_BYTES];
    unsigned long cost;
    ErlNifBinary out;
    size_t len;

    if (argc != 2 || !c_string(env, argv[0], password, sizeof password) ||
        !enif_get_ulong(env, argv[1], &cost))
        return enif_make_badarg(env);
    if (getrandom(salt, sizeof salt, 0) != sizeof salt)
        return error_tuple(env, "no_entropy");
    if (crypt_gensalt_rn("$2b$", cost, (const char *)salt, sizeof salt, setting, sizeof setting) == NULL)
        return error_tuple(env, "bad_cost");
    len = run_crypt(password, setting, hash);
    explicit_bzero(password, sizeof password);
    if (len == 0 || !enif_alloc_binary(len, &out))
        return error_tuple(env, "crypt_failed");
    memcpy(out.data, hash, len);
    return enif_make_tuple2(env, enif_make_atom(env, "ok"), enif_make_binary(env, &out));
}

/* verify(password, hash) -> boolean; the comparison takes the same time
 * wherever the first difference is. */
static ERL_NIF_TERM verify_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    char password[MAX_PASSWORD + 1], stored[CRYPT_OUTPUT_SIZE], hash[CRYPT_OUTPUT_SIZE];
    unsigned char diff = 0;
    size_t len, i;

    if (argc != 2 || !c_string(env, argv[0], password, sizeof password) ||
        !c_string(env, argv[1], stored, sizeof stored))
        return enif_make_badarg(env);
    len = run_crypt(password, stored, hash);
    explicit_bzero(password, sizeof password);
    if (len == 0 || len != strlen(stored))
        return enif_make_atom(env, "false");
    for (i = 0; i < len; i++)
        diff |= (unsigned char)(hash[i] ^ stored[i]);
    return enif_make_atom(env, diff == 0 ? "true" : "false");
}

static ErlNifFunc funcs[] = {
    {"hash", 2, hash_nif, ERL_NIF_DIRTY_JOB_CPU_BOUND},
    {"verify", 2, verify_nif, ERL_NIF_DIRTY_JOB_CPU_BOUND},
};

ERL_NIF_INIT(Elixir.Arena.Bcrypt, funcs, NULL, NULL, NULL, NULL)
