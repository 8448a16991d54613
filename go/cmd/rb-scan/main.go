// Command rb-scan is the Go part of roundbench's static scan of the timed
// code (python/roundbench/report/scan.py says what it looks for and why).
//
//	rb-scan [ROOT]
//
// reads the Go sources under ROOT (default "."): the package in go/ and
// every round runner in go/cmd/rb-go/<round>/. A variant's entry is the
// function its runner gives harness.Register; its timed code is what that
// entry hands harness.Timed or harness.Calibrated, the code between the
// first and the last time.Now() of a function it reaches, and all of a
// helper given to harness.RegisterHelper (a server the load generator
// times), each followed through every function of the project it reaches
// by name. The harness package, the protocol itself, is not followed. A
// hit on a line that says, or under a line that says, "scan: allow KIND"
// (with its reason) is printed as "waived" instead of "hit". It prints,
// sorted,
//
//	scanned ROUND VARIANT
//	hit ROUND VARIANT KIND FILE:LINE CALL
//	waived ROUND VARIANT KIND FILE:LINE CALL
//
// with KIND one of forced-gc, sleep, yield, print, locale. Method calls are
// followed to every project method of that name (the scan has no types),
// which can only add hits, never hide one.
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const (
	modulePath  = "roundbench/go"
	harnessPath = "roundbench/go/internal/harness"
	runnersDir  = "go/cmd/rb-go"
)

// calls maps an imported package's path and function to the kind of hit.
var calls = map[string]map[string]string{
	"runtime":       {"GC": "forced-gc", "Gosched": "yield"},
	"runtime/debug": {"FreeOSMemory": "forced-gc"},
	"time":          {"Sleep": "sleep"},
	"fmt":           {"Print": "print", "Printf": "print", "Println": "print"},
}

// wholePackages are packages every function of which is a hit of a kind.
var wholePackages = map[string]string{
	"log":                           "print",
	"log/slog":                      "print",
	"golang.org/x/text/message":     "locale",
	"golang.org/x/text/number":      "locale",
	"golang.org/x/text/currency":    "locale",
	"github.com/sirupsen/logrus":    "print",
	"go.uber.org/zap":               "print",
	"github.com/rs/zerolog/log":     "print",
	"golang.org/x/text/language":    "locale",
	"github.com/dustin/go-humanize": "locale",
}

// streamCalls print when their first argument is os.Stdout or os.Stderr.
var streamCalls = map[string]bool{"Fprint": true, "Fprintf": true, "Fprintln": true}

type pkg struct {
	dir     string
	files   []*ast.File
	funcs   map[string]*ast.FuncDecl   // top-level functions
	methods map[string][]*ast.FuncDecl // method name -> every method of that name
}

type hit struct{ what, round, variant, kind, where, call string }

type scanner struct {
	root  string
	fset  *token.FileSet
	pkgs  map[string]*pkg // import path -> package
	hits  map[hit]bool
	done  map[*ast.FuncDecl]bool
	round string
	impl  string
	// record is false while the entry is searched for its timed parts, true
	// while those are scanned.
	record bool
	timed  []part
	lines  map[string][]string // file -> its lines, for the waivers
}

// part is timed code: nodes of a file of a package.
type part struct {
	path string
	file *ast.File
	node ast.Node
	// from, to: when set, only the nodes between these positions
	from, to token.Pos
}

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	if len(os.Args) > 2 || root == "-h" || root == "--help" {
		fmt.Fprintln(os.Stderr, "usage: rb-scan [ROOT]")
		os.Exit(2)
	}
	s := &scanner{root: root, fset: token.NewFileSet(), pkgs: map[string]*pkg{}, hits: map[hit]bool{},
		lines: map[string][]string{}}
	if err := s.load(); err != nil {
		fmt.Fprintln(os.Stderr, "rb-scan:", err)
		os.Exit(1)
	}
	scanned := s.run()
	w := bufio.NewWriter(os.Stdout)
	for _, line := range scanned {
		fmt.Fprintln(w, line)
	}
	var lines []string
	for h := range s.hits {
		lines = append(lines, fmt.Sprintf("%s %s %s %s %s %s", h.what, h.round, h.variant, h.kind, h.where, h.call))
	}
	sort.Strings(lines)
	for _, line := range lines {
		fmt.Fprintln(w, line)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "rb-scan:", err)
		os.Exit(1)
	}
}

// load parses the package in go/ and each runner directory.
func (s *scanner) load() error {
	if err := s.parseDir(modulePath, filepath.Join(s.root, "go")); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(s.root, runnersDir))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := s.parseDir(modulePath+"/cmd/rb-go/"+e.Name(), filepath.Join(s.root, runnersDir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *scanner) parseDir(path, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	p := &pkg{dir: dir, funcs: map[string]*ast.FuncDecl{}, methods: map[string][]*ast.FuncDecl{}}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(s.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		p.files = append(p.files, f)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if fd.Recv == nil {
				p.funcs[fd.Name.Name] = fd
			} else {
				p.methods[fd.Name.Name] = append(p.methods[fd.Name.Name], fd)
			}
		}
	}
	s.pkgs[path] = p
	return nil
}

// imports maps a file's local package names to import paths.
func imports(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if path == modulePath {
			name = "roundbench"
		}
		if im.Name != nil {
			name = im.Name.Name
		}
		out[name] = path
	}
	return out
}

// run finds every registration in the runners and scans its function.
func (s *scanner) run() []string {
	var scanned []string
	var paths []string
	for path := range s.pkgs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		if !strings.HasPrefix(path, modulePath+"/cmd/rb-go/") {
			continue
		}
		p := s.pkgs[path]
		for _, f := range p.files {
			im := imports(f)
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) < 3 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "Register" && sel.Sel.Name != "RegisterHelper") {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || im[x.Name] != harnessPath {
					return true
				}
				round, err1 := strconv.Unquote(literal(call.Args[0]))
				impl, err2 := strconv.Unquote(literal(call.Args[1]))
				if err1 != nil || err2 != nil {
					return true
				}
				s.round, s.impl = round, impl
				// Phase 1: the timed parts of what the entry reaches.
				s.record, s.timed, s.done = false, nil, map[*ast.FuncDecl]bool{}
				if sel.Sel.Name == "RegisterHelper" {
					s.timed = append(s.timed, part{path: path, file: f, node: call.Args[2]})
				} else {
					s.walk(part{path: path, file: f, node: call.Args[2]})
				}
				// Phase 2: those parts, and all they reach.
				s.record, s.done = true, map[*ast.FuncDecl]bool{}
				for _, t := range s.timed {
					s.walk(t)
				}
				scanned = append(scanned, fmt.Sprintf("scanned %s %s", round, impl))
				return true
			})
		}
	}
	sort.Strings(scanned)
	return dedup(scanned)
}

func literal(e ast.Expr) string {
	if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
		return b.Value
	}
	return ""
}

func dedup(in []string) []string {
	var out []string
	for i, s := range in {
		if i == 0 || in[i-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// walk goes through a part: in phase 1 it collects the timed parts of
// every function reached, in phase 2 it records the hits; both follow every
// project function the part names.
func (s *scanner) walk(pt part) {
	im := imports(pt.file)
	p := s.pkgs[pt.path]
	if !s.record {
		s.findTimed(pt, im)
	}
	ast.Inspect(pt.node, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if pt.from.IsValid() && (n.End() < pt.from || n.Pos() > pt.to) {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if s.record {
				s.check(im, n)
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if _, isPkg := im[identName(sel.X)]; !isPkg {
					// a method call: every project method of that name
					for _, q := range []string{pt.path, modulePath} {
						for _, m := range s.pkgs[q].methods[sel.Sel.Name] {
							s.follow(q, m)
						}
					}
				}
			}
		case *ast.Ident:
			if fd, ok := p.funcs[n.Name]; ok {
				s.follow(pt.path, fd)
			}
		case *ast.SelectorExpr:
			if target, ok := im[identName(n.X)]; ok {
				if q, ok := s.pkgs[target]; ok && target != harnessPath {
					if fd, ok := q.funcs[n.Sel.Name]; ok {
						s.follow(target, fd)
					}
				}
			}
		}
		return true
	})
}

// findTimed adds a part's timed code to s.timed: what it hands
// harness.Timed or harness.Calibrated, and, in each function, the code
// from its first time.Now() to its last.
func (s *scanner) findTimed(pt part, im map[string]string) {
	ast.Inspect(pt.node, func(n ast.Node) bool {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if ok && im[identName(sel.X)] == harnessPath && (sel.Sel.Name == "Timed" || sel.Sel.Name == "Calibrated") &&
				len(n.Args) > 0 {
				s.timed = append(s.timed, part{path: pt.path, file: pt.file, node: n.Args[0]})
			}
			return true
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		default:
			return true
		}
		var clocks []token.Pos
		ast.Inspect(body, func(m ast.Node) bool {
			if _, nested := m.(*ast.FuncLit); nested && m != ast.Node(body) {
				return false
			}
			if call, ok := m.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && im[identName(sel.X)] == "time" && sel.Sel.Name == "Now" {
					clocks = append(clocks, call.Pos())
				}
			}
			return true
		})
		if len(clocks) >= 2 {
			s.timed = append(s.timed, part{path: pt.path, file: pt.file, node: body, from: clocks[0], to: clocks[len(clocks)-1]})
		}
		return true
	})
}

func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func (s *scanner) follow(path string, fd *ast.FuncDecl) {
	if s.done[fd] {
		return
	}
	s.done[fd] = true
	p := s.pkgs[path]
	for _, f := range p.files {
		if f.Pos() <= fd.Pos() && fd.End() <= f.End() {
			s.walk(part{path: path, file: f, node: fd})
			return
		}
	}
}

// check records a hit if call is one of the kinds looked for.
func (s *scanner) check(im map[string]string, call *ast.CallExpr) {
	var kind, what string
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		if fun.Name == "print" || fun.Name == "println" {
			kind, what = "print", fun.Name
		}
	case *ast.SelectorExpr:
		path, ok := im[identName(fun.X)]
		if !ok {
			return
		}
		name := fun.Sel.Name
		what = path + "." + name
		if k, ok := calls[path][name]; ok {
			kind = k
		} else if k, ok := wholePackages[path]; ok {
			kind = k
		} else if path == "fmt" && streamCalls[name] && len(call.Args) > 0 {
			if arg, ok := call.Args[0].(*ast.SelectorExpr); ok && im[identName(arg.X)] == "os" &&
				(arg.Sel.Name == "Stdout" || arg.Sel.Name == "Stderr") {
				kind, what = "print", fmt.Sprintf("fmt.%s(os.%s)", name, arg.Sel.Name)
			}
		}
	}
	if kind == "" {
		return
	}
	pos := s.fset.Position(call.Pos())
	rel, err := filepath.Rel(s.root, pos.Filename)
	if err != nil {
		rel = pos.Filename
	}
	tag := "hit"
	if s.waived(pos.Filename, pos.Line, kind) {
		tag = "waived"
	}
	s.hits[hit{tag, s.round, s.impl, kind, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), pos.Line), what}] = true
}

// waived says whether line (1-based) of file, or the line above it, says
// "scan: allow KIND" (a list of kinds may follow, comma-separated).
func (s *scanner) waived(file string, line int, kind string) bool {
	lines, ok := s.lines[file]
	if !ok {
		data, err := os.ReadFile(file)
		if err == nil {
			lines = strings.Split(string(data), "\n")
		}
		s.lines[file] = lines
	}
	for _, i := range []int{line - 1, line - 2} {
		if i < 0 || i >= len(lines) {
			continue
		}
		_, after, found := strings.Cut(lines[i], "scan: allow ")
		if !found {
			continue
		}
		list, _, _ := strings.Cut(after, ":")
		for _, k := range strings.Split(list, ",") {
			if strings.TrimSpace(k) == kind {
				return true
			}
		}
	}
	return false
}
