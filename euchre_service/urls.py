from django.contrib import admin
from django.urls import path

from euchre_service.health import healthz
from games.http import apis, feed, streams
from games.http.web import play

api = [
    path("auth/register", apis.RegisterApi.as_view(), name="register"),
    path("auth/token", apis.TokenApi.as_view(), name="token"),
    path("auth/guest", apis.GuestApi.as_view(), name="guest"),
    path("auth/logout", apis.LogoutApi.as_view(), name="logout"),
    path("auth/logout-all", apis.LogoutAllApi.as_view(), name="logout-all"),
    path("matches", apis.MatchListCreateApi.as_view(), name="matches"),
    path("matches/public", apis.PublicMatchesApi.as_view(), name="matches-public"),
    path("quickplay", apis.QuickplayApi.as_view(), name="quickplay"),
    path("matches/<str:match_id>", apis.MatchDetailApi.as_view(), name="match"),
    path("matches/<str:match_id>/join", apis.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<str:match_id>/leave", apis.MatchLeaveApi.as_view(), name="match-leave"),
    path("matches/<str:match_id>/return", apis.MatchReturnApi.as_view(), name="match-return"),
    path("matches/<str:match_id>/actions", apis.MatchActionApi.as_view(), name="match-actions"),
    path("matches/<str:match_id>/events", apis.MatchEventsApi.as_view(), name="match-events"),
    path("matches/<str:match_id>/stream", streams.match_stream, name="match-stream"),
    path("matches/<str:match_id>/replay", apis.MatchReplayApi.as_view(), name="match-replay"),
    path("matches/<str:match_id>/rematch", apis.RematchOfferApi.as_view(), name="match-rematch"),
    path(
        "matches/<str:match_id>/rematch/accept",
        apis.RematchAcceptApi.as_view(),
        name="match-rematch-accept",
    ),
    path(
        "matches/<str:match_id>/rematch/decline",
        apis.RematchDeclineApi.as_view(),
        name="match-rematch-decline",
    ),
    path("matches/<str:match_id>/review", apis.MatchReviewApi.as_view(), name="match-review"),
    path("matches/<str:match_id>/hints", apis.HintRequestApi.as_view(), name="match-hints"),
    path("matches/<str:match_id>/ratings", apis.MatchRatingsApi.as_view(), name="match-ratings"),
    path("hints/<str:hint_id>", apis.HintDetailApi.as_view(), name="hint"),
    path("users/<str:username>/matches", apis.UserMatchesApi.as_view(), name="user-matches"),
    path("users/<str:username>/stats", apis.UserStatsApi.as_view(), name="user-stats"),
    path("leaderboard", apis.LeaderboardApi.as_view(), name="leaderboard"),
    path("me", apis.MeApi.as_view(), name="me"),
    path("me/matches", apis.MyMatchesApi.as_view(), name="me-matches"),
    path("me/stream", feed.me_stream, name="me-stream"),
    path("schema", apis.SchemaApi.as_view(), name="schema"),
    path("docs", apis.DocsApi.as_view(url_name="schema"), name="docs"),
]

# Under /api/ Django's own error answers are the API's error body too (games/http/api_errors.py).
handler400 = "games.http.api_errors.bad_request"
handler403 = "games.http.api_errors.permission_denied"
handler404 = "games.http.api_errors.not_found"
handler500 = "games.http.api_errors.server_error"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("play/", play, name="play"),
    *[path(f"api/v1/{p.pattern}", p.callback, name=p.name) for p in api],
]
