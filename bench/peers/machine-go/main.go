// Command machine-go is the controller-runtime peer of kubeop's Machine/Switch operator
// (controllers/machine/controller.ts): same objects, status, conditions, Events and ownerReferences, written the
// way controller-runtime is meant to be used (a manager, For/Owns/Watches, cache field indexes, unstructured objects).
//
// Client-side throttling: controller-runtime v0.25's config.GetConfig (pkg/client/config/config.go) sets
// rest.Config.QPS = -1 when it is 0 — no client-side rate limiter, relying on API Priority and Fairness — whereas
// client-go's own defaults would be QPS 5 / burst 10 (rest/config.go DefaultQPS/DefaultBurst). This binary uses
// ctrl.GetConfig (its --kubeconfig flag) and so runs unthrottled unless --kube-api-qps > 0 is given.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/flowcontrol"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

func main() {
	var (
		maxConcurrent    int
		qps              float64
		burst            int
		leaderElect      bool
		leaderID         string
		leaderNamespace  string
		metricsAddr      string
		probeAddr        string
		pprofAddr        string
		namespace        string
		userAgent        string
		gracefulShutdown int
	)
	flag.IntVar(&maxConcurrent, "max-concurrent-reconciles", 1, "workers of the machine controller")
	flag.Float64Var(&qps, "kube-api-qps", 0, "client-side QPS limit (0: unthrottled, as controller-runtime's GetConfig)")
	flag.IntVar(&burst, "kube-api-burst", 0, "client-side burst (with --kube-api-qps)")
	flag.BoolVar(&leaderElect, "leader-elect", false, "elect a leader through a Lease")
	flag.StringVar(&leaderID, "leader-election-id", "machine-go", "Lease name")
	flag.StringVar(&leaderNamespace, "leader-election-namespace", "default", "Lease namespace")
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "metrics address (0 disables)")
	flag.StringVar(&probeAddr, "health-probe-bind-address", "0", "/healthz and /readyz address (0 disables)")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "", "pprof address (/debug/pprof/heap?gc=1 forces a GC)")
	flag.StringVar(&namespace, "namespace", "", "watch only this namespace (default: all)")
	flag.StringVar(&userAgent, "user-agent", "machine-go", "User-Agent of every request")
	flag.IntVar(&gracefulShutdown, "graceful-shutdown-timeout-seconds", 25, "longest drain on shutdown")
	opts := zap.Options{Development: false}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	cfg, err := ctrl.GetConfig() // --kubeconfig (registered by controller-runtime), $KUBECONFIG, in-cluster, ~/.kube
	if err != nil {
		fmt.Fprintf(os.Stderr, "machine-go: loading the kubeconfig: %v\n", err)
		os.Exit(2)
	}
	cfg.UserAgent = userAgent
	if qps > 0 {
		if burst < 1 {
			burst = 1
		}
		cfg.QPS = float32(qps)
		cfg.Burst = burst
		// One bucket for the whole process, as kubeop's --kube-api-qps: left to QPS/Burst alone, client-go gives every
		// RESTClient its own bucket, and controller-runtime makes one per GVK (plus the informers' and the Event
		// recorder's), which would multiply the budget.
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(float32(qps), burst)
	}

	cacheOpts := cache.Options{}
	if namespace != "" {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		log.Error(err, "building the scheme")
		os.Exit(1)
	}
	shutdown := time.Duration(gracefulShutdown) * time.Second
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme,
		Cache:  cacheOpts,
		// Reads of unstructured objects come from the informer cache (controller-runtime's default for them is the
		// API server).
		Client:                        client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics:                       metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress:        probeAddr,
		PprofBindAddress:              pprofAddr,
		LeaderElection:                leaderElect,
		LeaderElectionID:              leaderID,
		LeaderElectionNamespace:       leaderNamespace,
		LeaderElectionReleaseOnCancel: true,
		GracefulShutdownTimeout:       &shutdown,
	})
	if err != nil {
		log.Error(err, "creating the manager")
		os.Exit(1)
	}
	if err := setupMachineController(mgr, maxConcurrent); err != nil {
		log.Error(err, "setting up the machine controller")
		os.Exit(1)
	}
	if probeAddr != "0" && probeAddr != "" {
		_ = mgr.AddHealthzCheck("healthz", healthz.Ping)
		_ = mgr.AddReadyzCheck("readyz", func(req *http.Request) error {
			return readyErr(mgr.GetCache().WaitForCacheSync(req.Context()))
		})
	}
	log.Info("starting machine-go", "server", cfg.Host, "maxConcurrentReconciles", maxConcurrent, "qps", cfg.QPS)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "manager stopped")
		os.Exit(1)
	}
}

func readyErr(synced bool) error {
	if !synced {
		return fmt.Errorf("caches not synced")
	}
	return nil
}
