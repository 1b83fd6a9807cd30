/* A tiny Botzone Tractor bot: passes at the deal, buries the 8 cards it is given, leads or
   follows with nothing it knows (it answers []). argv[1] "keep": the long-running mode;
   argv[2]: a file each input line is appended to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[1 << 22];

static void answer(const char *in) {
    const char *stage = NULL, *p = in;
    while ((p = strstr(p, "\"stage\":\"")) != NULL) stage = p++;   /* the last request's */
    if (stage && strncmp(stage + 9, "cover", 5) == 0) {
        const char *d = strstr(stage, "\"deliver\":[");
        const char *end = d ? strchr(d, ']') : NULL;
        if (d && end) {
            printf("{\"response\":[%.*s]}\n", (int)(end - d - 11), d + 11);
            return;
        }
    }
    printf("{\"response\":[]}\n");
}

int main(int argc, char **argv) {
    int keep = argc > 1 && strcmp(argv[1], "keep") == 0;
    FILE *log = argc > 2 ? fopen(argv[2], "a") : NULL;
    while (fgets(line, sizeof line, stdin)) {
        if (log) { fputs(line, log); fflush(log); }
        answer(line);
        if (!keep) return 0;
        printf("\n>>>BOTZONE_REQUEST_KEEP_RUNNING<<<\n");
        fflush(stdout);
    }
    return 0;
}
