# expect: none (the view keeps Django's CSRF check and only accepts POST)
from django.http import JsonResponse
from django.views.decorators.http import require_POST


@require_POST
def transfer(request):
    amount = int(request.POST["amount"])
    return JsonResponse({"sent": amount})
