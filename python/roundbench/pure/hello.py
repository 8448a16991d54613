"""Round startup's Python hello-world, the program Nuitka compiles (variants
py-nuitka and py-nuitka-onefile): print one line and exit, as build/hello-c
and go/cmd/rb-hello do; csrc/runner/run_startup.c checks every start's
output."""


def main() -> None:
    print("hello, world")


if __name__ == "__main__":
    main()
