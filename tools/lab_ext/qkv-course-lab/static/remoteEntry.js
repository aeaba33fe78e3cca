// The course's JupyterLab extension, written by hand as the module-federation container
// JupyterLab 4 loads for a prebuilt extension (no npm, no build step): see ../README.md.
//
// One plugin: the notebook's cell executor (JupyterLab's token INotebookCellExecutor, whose
// default plugin ../package.json turns off while this one is there). A cell run while the
// notebook's kernel is still starting waits until the session is ready, then runs as
// JupyterLab's own runCell runs it; the cells of one Run All keep their order, since each
// waits for the same promise. JupyterLab 4.6's own executor instead asks "Select Kernel"
// once per cell and wipes the outputs (or, with enableKernelInitNotification, runs nothing).
var _JUPYTERLAB;
(function () {
  "use strict";
  var NAME = "qkv-course-lab";
  var shared = null;

  function newer(a, b) {  // semantic versions "4.6.6" > "4.6.10"? compared by numbers
    var x = a.split(/[.+-]/), y = b.split(/[.+-]/);
    for (var i = 0; i < Math.max(x.length, y.length); i++) {
      var p = parseInt(x[i] || "0", 10), q = parseInt(y[i] || "0", 10);
      if (p !== q) return p > q;
    }
    return false;
  }

  // The copy of a package JupyterLab shares (its singletons: the highest version).
  function load(name) {
    var versions = (shared && shared[name]) || {};
    var best = null;
    Object.keys(versions).forEach(function (v) { if (best === null || newer(v, best)) best = v; });
    if (best === null) return Promise.reject(new Error(NAME + ": " + name + " is not shared"));
    var entry = versions[best];
    entry.loaded = 1;
    return Promise.resolve(entry.get()).then(function (factory) { return factory(); });
  }

  function plugin(notebook) {
    return {
      id: NAME + ":run-all-waits-for-the-kernel",
      description: "Runs a cell sent while the kernel is starting once the kernel is ready.",
      autoStart: true,
      provides: notebook.INotebookCellExecutor,
      activate: function () {
        return Object.freeze({
          runCell: function (options) {
            var context = options.sessionContext;
            var starting = context && !context.isDisposed && !context.isReady;
            if (!starting) return notebook.runCell(options);
            return context.ready.then(function () { return notebook.runCell(options); });
          }
        });
      }
    };
  }

  _JUPYTERLAB = typeof _JUPYTERLAB === "undefined" ? {} : _JUPYTERLAB;
  _JUPYTERLAB[NAME] = {
    init: function (scope) { shared = scope; },
    get: function (module) {
      if (module !== "./extension") {
        return Promise.reject(new Error(NAME + " has no module " + module));
      }
      return load("@jupyterlab/notebook").then(function (notebook) {
        return function () { return { __esModule: true, default: [plugin(notebook)] }; };
      });
    }
  };
})();
