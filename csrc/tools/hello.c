/* hello.c: the C program of round startup (variants c and c-static): print
 * one line and exit. Built with the core's flags, once linked dynamically
 * (build/hello-c) and once statically (build/hello-c-static). */
#include <stdio.h>

int main(void)
{
    fputs("hello, world\n", stdout);
    return 0;
}
